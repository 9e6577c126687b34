/**
 * Face search over a whole picture. The face detector sees the picture scaled to its input size (1024 pixels
 * by default), where faces in large photos become too small; pictures much larger than that are also searched
 * in four overlapping quarters, and faces found only there are added.
 */
import type { RgbImage } from '../../../images/rgb-image.js';
import type { AnalysisContext } from '../analysis-registry.js';
import type { LabelledDetection } from '../../../inference/tasks/vision-detect.task.js';
import { iou, type Box } from '../../../vision/detect/detection.js';
import { detect, FACE_STAGE } from './vision-calls.js';

/** Longer sides above this are searched in quarters as well. */
export const FACE_TILING_FROM = 1600;
const QUARTERS: Box[] = [
  [0, 0, 0.55, 0.55],
  [0.45, 0, 0.55, 0.55],
  [0, 0.45, 0.55, 0.55],
  [0.45, 0.45, 0.55, 0.55],
];

/**
 * Faces of the whole picture, plus those of the quarters that overlap none of them (a quarter can cut a face
 * in two: a box mostly inside a kept one counts as overlapping too). Among quarter faces the best score wins.
 */
export function mergeFaces(whole: readonly LabelledDetection[], quarters: readonly LabelledDetection[], iouThreshold = 0.3): LabelledDetection[] {
  const kept: LabelledDetection[] = [...whole];
  for (const f of [...quarters].sort((a, b) => b.score - a.score)) {
    if (kept.some((k) => iou(k.box, f.box) > iouThreshold || containedShare(f.box, k.box) > 0.7 || containedShare(k.box, f.box) > 0.7)) continue;
    kept.push(f);
  }
  return kept;
}

function containedShare(inner: Box, outer: Box): number {
  const ix = Math.max(0, Math.min(inner[0] + inner[2], outer[0] + outer[2]) - Math.max(inner[0], outer[0]));
  const iy = Math.max(0, Math.min(inner[1] + inner[3], outer[1] + outer[3]) - Math.max(inner[1], outer[1]));
  const area = inner[2] * inner[3];
  return area > 0 ? (ix * iy) / area : 0;
}

export async function findFaces(ctx: AnalysisContext, image: RgbImage): Promise<LabelledDetection[]> {
  const large = Math.max(image.width, image.height) > FACE_TILING_FROM;
  const [whole, quarters] = await Promise.all([
    detect(ctx, { stage: FACE_STAGE, image }),
    large ? detect(ctx, { stage: FACE_STAGE, image, regions: QUARTERS }) : Promise.resolve([]),
  ]);
  return large ? mergeFaces(whole, quarters) : whole;
}
