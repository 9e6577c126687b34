/**
 * `warm-models`: loads every model of the pack (and of IRIS_MODEL_OVERRIDES) in this thread and runs each once on
 * a blank picture, so the thread holds from its start what it will hold at work: no call pays for a model's first
 * load, and the process's memory is flat from its first minute instead of growing as each thread meets each model.
 */
import { embed } from '../../vision/embedding/embedder.js';
import { manifestStages, resolveManifest } from '../../vision/runtime/model-config.js';
import { loadManifestModel, manifestInput } from '../../vision/runtime/manifest-model.js';
import { warmUpFeatures } from '../../vision/training/feature-extractor.js';
import type { RgbImage } from '../../images/rgb-image.js';

export interface WarmModelsResult {
  /** Manifest models loaded and run (stages sharing a file count once). */
  models: number;
  ms: number;
}

const SIDE = 64;

function blankPicture(): RgbImage {
  return { data: new Uint8Array(SIDE * SIDE * 3).fill(128), width: SIDE, height: SIDE };
}

/** `stop`: checked between models, so a thread asked to stop while warming ends after the model it is on. */
export default async function warmModels(stop: AbortSignal = new AbortController().signal): Promise<WarmModelsResult> {
  const started = performance.now();
  const files = new Set<string>();
  for (const stage of manifestStages()) {
    const manifest = resolveManifest(stage);
    if (files.has(manifest.file)) continue;
    if (stop.aborted) break;
    files.add(manifest.file);
    const model = await loadManifestModel(manifest);
    await model.run(manifestInput([blankPicture()], manifest));
  }
  if (!stop.aborted) await embed({ rgb: blankPicture() });
  if (!stop.aborted) await warmUpFeatures();
  return { models: files.size, ms: Math.round(performance.now() - started) };
}
