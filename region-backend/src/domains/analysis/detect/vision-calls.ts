/**
 * The calls vision handlers make into the inference pool, typed, plus the conversion of detections into the
 * specification's box items. Pixels are copied once into shared memory so several tasks can read the same
 * picture on different threads at the same time without further copies.
 */
import type { RgbImage } from '../../../images/rgb-image.js';
import { labelText, type Lang, type ServiceLabel } from '@iris/shared';
import type { ImageStats } from '../../../vision/classify/image-stats.js';
import type { AnalysisContext } from '../analysis-registry.js';
import type { VisionClassifyResult } from '../../../inference/tasks/vision-classify.task.js';
import type { LabelledDetection, VisionDetectPayload } from '../../../inference/tasks/vision-detect.task.js';
import type { Box } from '../../../vision/detect/detection.js';

/** The default detector every object-based stage falls back to. */
export const OBJECT_STAGE = 'object-detector';
export const FACE_STAGE = 'face-detector';
export const FACE_ATTRIBUTES_STAGE = 'face-attributes';
export const PORN_STAGE = 'porn-classifier';

/** A copy of the pixels in a SharedArrayBuffer: posting it to workers shares it instead of copying. */
export function sharedImage(rgb: RgbImage): RgbImage {
  if (rgb.data.buffer instanceof SharedArrayBuffer) return rgb;
  const data = new Uint8Array(new SharedArrayBuffer(rgb.data.byteLength));
  data.set(rgb.data);
  return { data, width: rgb.width, height: rgb.height };
}

export async function detect(ctx: AnalysisContext, payload: VisionDetectPayload): Promise<LabelledDetection[]> {
  const result = await ctx.pool.run('vision-detect', payload);
  return result.detections;
}

export function classify(ctx: AnalysisContext, stage: string, image: RgbImage): Promise<VisionClassifyResult> {
  return ctx.pool.run('vision-classify', { stage, image });
}

export async function faceAttributes(ctx: AnalysisContext, image: RgbImage, faces: Box[], adultAge: number) {
  const result = await ctx.pool.run('face-attributes', { stage: FACE_ATTRIBUTES_STAGE, image, faces, adultAge });
  return result.faces;
}

export function stats(ctx: AnalysisContext, image: RgbImage): Promise<ImageStats> {
  return ctx.pool.run('image-stats', { image });
}

export interface DetectBoxItem {
  box: [number, number, number, number];
  puid: string;
  score: number;
  type: string;
}

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

export function boxItem(box: Box, label: ServiceLabel, score: number, lang: Lang): DetectBoxItem {
  return { box: [round(box[0]), round(box[1]), round(box[2]), round(box[3])], puid: label.puid, score: round(score), type: labelText(label, lang) };
}

/**
 * Maps detector labels onto a service's labels: through `mapping` (detector label → service label id), or
 * directly when a detector label is itself one of the service's ids (operator models trained on them).
 */
export function mapDetections(
  detections: readonly LabelledDetection[],
  labels: ReadonlyMap<string, ServiceLabel>,
  mapping: Readonly<Record<string, string>>,
  minScore: number,
  lang: Lang,
): DetectBoxItem[] {
  const items: DetectBoxItem[] = [];
  for (const d of detections) {
    if (d.score < minScore) continue;
    const label = labels.get(mapping[d.label] ?? d.label);
    if (label) items.push(boxItem(d.box, label, d.score, lang));
  }
  return items.sort((a, b) => b.score - a.score);
}
