/**
 * nsfwjs ships its TFJS models as UMD bundles (`dist/models/<name>/model.min.js` holding the model JSON,
 * `group1-shardNofM.min.js` each holding one base64 weight shard) instead of model.json + .bin files.
 * This reads those bundles from disk into TFJS model artifacts, with no network and no nsfwjs runtime code.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as tfTypes from '@tensorflow/tfjs';
import { packageFile, tfjs } from './tfjs.js';

const require = createRequire(import.meta.url);

export type NsfwjsModelName = 'mobilenet_v2' | 'mobilenet_v2_mid' | 'inception_v3';

/** Classes of every nsfwjs model, in output order. */
export const NSFWJS_CLASSES = ['drawing', 'hentai', 'neutral', 'porn', 'sexy'] as const;

/** Input side of each model (pixels scaled to 0..1, RGB, NHWC). */
export const NSFWJS_INPUT_SIZE: Record<NsfwjsModelName, number> = { mobilenet_v2: 224, mobilenet_v2_mid: 224, inception_v3: 299 };

/** `model.min.js` of a bundled model (for manifests: `pkg:nsfwjs/dist/models/<name>/model.min.js`). */
export function nsfwjsModelFile(name: NsfwjsModelName): string {
  return packageFile('nsfwjs', `dist/models/${name}/model.min.js`);
}

function loadBundle(file: string): unknown {
  const loaded: unknown = require(file);
  return loaded && typeof loaded === 'object' && 'default' in loaded ? (loaded as { default: unknown }).default : loaded;
}

/** Model artifacts from a `model.min.js` bundle and the shard bundles beside it. */
export function nsfwjsArtifacts(modelBundle: string): tfTypes.io.ModelArtifacts {
  const json = loadBundle(modelBundle) as tfTypes.io.ModelJSON;
  if (!json?.modelTopology || !Array.isArray(json.weightsManifest)) throw new Error(`${modelBundle} is not an nsfwjs model bundle`);
  const dir = path.dirname(modelBundle);
  const specs: tfTypes.io.WeightsManifestEntry[] = [];
  const buffers: Buffer[] = [];
  for (const group of json.weightsManifest) {
    specs.push(...group.weights);
    for (const shard of group.paths) {
      const base64 = loadBundle(path.join(dir, `${shard}.min.js`));
      if (typeof base64 !== 'string') throw new Error(`${shard}.min.js in ${dir} does not hold a weight shard`);
      buffers.push(Buffer.from(base64, 'base64'));
    }
  }
  const weights = Buffer.concat(buffers);
  return {
    modelTopology: json.modelTopology,
    format: json.format,
    generatedBy: json.generatedBy,
    convertedBy: json.convertedBy,
    weightSpecs: specs,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
}

/** Whether a bundle holds a graph model (`format: graph-model`) or a layers model. */
export function nsfwjsIsGraphModel(artifacts: tfTypes.io.ModelArtifacts): boolean {
  const topology = artifacts.modelTopology as { node?: unknown } | undefined;
  return artifacts.format === 'graph-model' || Array.isArray(topology?.node);
}

/** Loads a bundled nsfwjs model (graph or layers, whichever the bundle holds) on the wasm backend. */
export async function loadNsfwjsModel(modelBundle: string): Promise<tfTypes.GraphModel | tfTypes.LayersModel> {
  const tf = await tfjs();
  const artifacts = nsfwjsArtifacts(modelBundle);
  const handler = tf.io.fromMemory(artifacts);
  return nsfwjsIsGraphModel(artifacts) ? tf.loadGraphModel(handler) : tf.loadLayersModel(handler);
}

interface GraphNode {
  name: string;
  op: string;
  attr?: { shape?: { shape?: { dim?: { size: string }[] } } };
}

/** Lets a graph model's placeholder accept any batch, height and width (the layers below must be convolutional). */
export function relaxInputShape(artifacts: tfTypes.io.ModelArtifacts): tfTypes.io.ModelArtifacts {
  const topology = artifacts.modelTopology as { node?: GraphNode[] } | undefined;
  for (const node of topology?.node ?? []) {
    const dims = node.op === 'Placeholder' ? node.attr?.shape?.shape?.dim : undefined;
    if (dims?.length === 4) for (let i = 0; i < 3; i++) dims[i] = { size: '-1' };
  }
  return artifacts;
}
