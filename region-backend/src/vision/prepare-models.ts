/**
 * Converts every TFJS graph model the backend will run (the default manifests, the operator's overrides,
 * the embedding backbone and the training feature taps) into the ONNX cache, and quantises the backbone when
 * it runs in int8, so the first request does not pay for it. Runs once per start in a worker thread; already cached conversions are only hash-checked.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { DEFAULT_MODELS_DIR, resolveManifest } from './runtime/model-config.js';
import { backboneSpec, EMBEDDING_OUTPUTS, quantisedBackboneSpec } from './embedding/backbone.js';
import { backbonePrecision } from './runtime/backbone-precision.js';
import { quantisedModel } from './runtime/quantised-model.js';
import { CLASSIFIER_FEATURES } from './training/feature-info.js';
import { tfjsGraphOutputs } from './convert/tfjs-artifacts.js';
import { convertedModel, type ConversionSpec } from './runtime/converted-model.js';

export interface PreparedModel {
  source: string;
  file: string;
  converted: boolean;
}

export function packConversions(): ConversionSpec[] {
  const stages = readdirSync(DEFAULT_MODELS_DIR).filter((f) => f.endsWith('.json')).map((f) => path.basename(f, '.json'));
  const specs: ConversionSpec[] = [backboneSpec([...EMBEDDING_OUTPUTS]), backboneSpec(CLASSIFIER_FEATURES.taps.map((t) => t.node))];
  for (const stage of stages) {
    const manifest = resolveManifest(stage);
    if (manifest.runtime === 'tfjs-graph') specs.push({ file: manifest.file, outputs: manifest.outputNames ?? tfjsGraphOutputs(manifest.file) });
  }
  return specs;
}

/**
 * `stop`: checked before each model (the event loop is given a turn first, so a stop request can arrive
 * between synchronous conversions) and between the quantisation's steps; once aborted, rejects with its reason.
 */
export async function prepareModels(stop?: AbortSignal): Promise<PreparedModel[]> {
  const prepared: PreparedModel[] = [];
  for (const spec of packConversions()) {
    await setImmediate();
    stop?.throwIfAborted();
    const { file, converted } = convertedModel(spec);
    prepared.push({ source: spec.file, file, converted });
  }
  if (backbonePrecision() === 'int8') {
    const spec = quantisedBackboneSpec([...EMBEDDING_OUTPUTS]);
    const { file, quantised } = await quantisedModel(spec, stop);
    prepared.push({ source: `${spec.conversion.file} (int8)`, file, converted: quantised });
  }
  return prepared;
}
