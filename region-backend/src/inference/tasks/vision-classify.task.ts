/** Runs a classifier stage on an image and answers one probability per manifest label. */
import type { RgbImage } from '../../images/rgb-image.js';
import { resolveManifest } from '../../vision/runtime/model-config.js';
import type { ManifestLabel } from '../../vision/runtime/model-manifest.js';
import { classScoresOptions, decodeClassScores, type ClassScore } from '../../vision/classify/class-scores.decoder.js';
import { loadManifestModel, manifestInput } from '../../vision/runtime/manifest-model.js';

export interface VisionClassifyPayload {
  stage: string;
  image: RgbImage;
}

export interface VisionClassifyResult {
  scores: ClassScore[];
  /** The manifest's category mapping (`output.categories`), if any. */
  categories?: Record<string, string[]>;
  /** The manifest's labels (texts for services that answer the model's own classes). */
  labels: ManifestLabel[];
  model: string;
}

export default async function visionClassify(payload: VisionClassifyPayload): Promise<VisionClassifyResult> {
  const manifest = resolveManifest(payload.stage);
  const options = classScoresOptions.parse(manifest.output);
  const model = await loadManifestModel(manifest);
  const outputs = await model.run(manifestInput([payload.image], manifest));
  const scores = decodeClassScores(outputs, manifest.labels?.map((l) => l.id), options);
  return { scores, ...(options.categories ? { categories: options.categories } : {}), labels: manifest.labels ?? [], model: manifest.name };
}
