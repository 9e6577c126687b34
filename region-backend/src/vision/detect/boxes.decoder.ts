/**
 * Decoding for detectors that already output final boxes (TF Object Detection API / SSD exports with NMS
 * inside the graph, many ONNX exports): `scores [1, N]`, `boxes [1, N, 4]`, optional `classes [1, N]`.
 * Boxes are normalised `[ymin, xmin, ymax, xmax]` (`yxyx`) or `[xmin, ymin, xmax, ymax]` (`xyxy`), or in
 * input pixels when `normalised` is false.
 */
import { z } from 'zod';
import type { OutputTensor } from '../runtime/manifest-model.js';
import { clampBox, nonMaxSuppression, type Detection } from './detection.js';

export const boxesOptions = z.object({
  type: z.literal('boxes'),
  scoresOutput: z.number().int().min(0).default(0),
  boxesOutput: z.number().int().min(0).default(1),
  classesOutput: z.number().int().min(0).optional(),
  /** Subtracted from class ids (1 when the model counts classes from 1). */
  classOffset: z.number().int().default(0),
  boxFormat: z.enum(['yxyx', 'xyxy']).default('yxyx'),
  normalised: z.boolean().default(true),
  minScore: z.number().min(0).max(1).default(0.5),
  iouThreshold: z.number().min(0).max(1).default(0.4),
  maxDetections: z.number().int().positive().default(100),
});
export type BoxesOptions = z.infer<typeof boxesOptions>;

export function decodeBoxes(outputs: OutputTensor[], inputWidth: number, inputHeight: number, options: BoxesOptions): Detection[] {
  const scores = outputs[options.scoresOutput];
  const boxes = outputs[options.boxesOutput];
  const classes = options.classesOutput === undefined ? undefined : outputs[options.classesOutput];
  if (!scores || !boxes) throw new Error('boxes decoder: missing scores or boxes output');
  const n = Math.min(scores.data.length, Math.floor(boxes.data.length / 4));
  const sx = options.normalised ? 1 : 1 / inputWidth;
  const sy = options.normalised ? 1 : 1 / inputHeight;
  const dets: Detection[] = [];
  for (let i = 0; i < n; i++) {
    const score = scores.data[i]!;
    if (!(score >= options.minScore)) continue;
    const b = boxes.data.subarray(i * 4, i * 4 + 4);
    const [x0, y0, x1, y1] = options.boxFormat === 'yxyx' ? [b[1]!, b[0]!, b[3]!, b[2]!] : [b[0]!, b[1]!, b[2]!, b[3]!];
    const box = clampBox([x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy]);
    if (!box) continue;
    const classIndex = classes ? Math.round(classes.data[i]!) - options.classOffset : 0;
    dets.push({ box, classIndex, score });
  }
  return nonMaxSuppression(dets, options.iouThreshold, options.maxDetections);
}
