/**
 * Decoding of YOLO-style detector exports (Ultralytics and compatible ONNX files), one output of candidates:
 * - `v5` (YOLOv5/v7): `[1, N, 5 + C]` = cx, cy, w, h, objectness, C class scores; score = objectness × class;
 * - `v8` (YOLOv8/v9/v11): `[1, 4 + C, N]` = cx, cy, w, h, then C class scores (no objectness), transposed.
 * Boxes are in input pixels (or 0..1 with `normalised`); then score threshold and non-maximum suppression.
 */
import { z } from 'zod';
import type { OutputTensor } from '../runtime/manifest-model.js';
import { clampBox, nonMaxSuppression, type Detection } from './detection.js';

export const yoloOptions = z.object({
  type: z.literal('yolo'),
  layout: z.enum(['v5', 'v8']).default('v8'),
  output: z.number().int().min(0).default(0),
  normalised: z.boolean().default(false),
  minScore: z.number().min(0).max(1).default(0.25),
  iouThreshold: z.number().min(0).max(1).default(0.45),
  maxDetections: z.number().int().positive().default(100),
  /** Suppress overlapping boxes whatever their class (default: per class). */
  classAgnostic: z.boolean().default(false),
});
export type YoloOptions = z.infer<typeof yoloOptions>;

export function decodeYolo(outputs: OutputTensor[], inputWidth: number, inputHeight: number, options: YoloOptions): Detection[] {
  const out = outputs[options.output];
  if (!out) throw new Error(`yolo decoder: no output ${options.output}`);
  const dims = out.dims.length === 3 ? out.dims.slice(1) : out.dims;
  if (dims.length !== 2) throw new Error(`yolo decoder: expected a [1, rows, cols] output, got [${out.dims}]`);
  const v8 = options.layout === 'v8';
  const [rows, cols] = dims as [number, number];
  const candidates = v8 ? cols : rows;
  const fields = v8 ? rows : cols;
  const classes = fields - (v8 ? 4 : 5);
  if (classes < 1) throw new Error(`yolo decoder: output [${out.dims}] has no class scores for layout ${options.layout}`);
  const at = v8 ? (i: number, f: number) => out.data[f * candidates + i]! : (i: number, f: number) => out.data[i * fields + f]!;
  const sx = options.normalised ? 1 : 1 / inputWidth;
  const sy = options.normalised ? 1 : 1 / inputHeight;
  const dets: Detection[] = [];
  for (let i = 0; i < candidates; i++) {
    const objectness = v8 ? 1 : at(i, 4);
    if (objectness < options.minScore) continue;
    const first = v8 ? 4 : 5;
    let best = 0;
    let bestScore = -Infinity;
    for (let c = 0; c < classes; c++) {
      const s = at(i, first + c);
      if (s > bestScore) [best, bestScore] = [c, s];
    }
    const score = objectness * bestScore;
    if (!(score >= options.minScore)) continue;
    const [cx, cy, w, h] = [at(i, 0) * sx, at(i, 1) * sy, at(i, 2) * sx, at(i, 3) * sy];
    const box = clampBox([cx - w / 2, cy - h / 2, w, h]);
    if (box) dets.push({ box, classIndex: best, score });
  }
  return nonMaxSuppression(dets, options.iouThreshold, options.maxDetections, options.classAgnostic);
}
