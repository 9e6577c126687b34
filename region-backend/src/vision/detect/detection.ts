/** A detector's output after decoding: a box normalised to the image (x, y, w, h in 0..1), a class and a score. */
export type Box = [x: number, y: number, w: number, h: number];

export interface Detection {
  box: Box;
  /** Index into the manifest's labels. */
  classIndex: number;
  score: number;
}

export function iou(a: Box, b: Box): number {
  const ix = Math.max(0, Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]));
  const inter = ix * iy;
  const union = a[2] * a[3] + b[2] * b[3] - inter;
  return union > 0 ? inter / union : 0;
}

/** Greedy non-maximum suppression, per class unless `classAgnostic`; highest scores first. */
export function nonMaxSuppression(dets: Detection[], iouThreshold: number, maxDetections = Infinity, classAgnostic = false): Detection[] {
  const sorted = [...dets].sort((a, b) => b.score - a.score);
  const kept: Detection[] = [];
  for (const d of sorted) {
    if (kept.length >= maxDetections) break;
    if (kept.some((k) => (classAgnostic || k.classIndex === d.classIndex) && iou(k.box, d.box) > iouThreshold)) continue;
    kept.push(d);
  }
  return kept;
}

/** Clamps a box to the unit square; drops it (null) when nothing is left. */
export function clampBox(box: Box): Box | null {
  const x0 = Math.max(0, Math.min(1, box[0]));
  const y0 = Math.max(0, Math.min(1, box[1]));
  const x1 = Math.max(0, Math.min(1, box[0] + box[2]));
  const y1 = Math.max(0, Math.min(1, box[1] + box[3]));
  return x1 > x0 && y1 > y0 ? [x0, y0, x1 - x0, y1 - y0] : null;
}
