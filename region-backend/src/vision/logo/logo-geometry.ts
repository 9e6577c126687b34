/** Plane geometry of logo detections: homographies, projected quadrilaterals and boxes (pure functions). */

export type Point = [number, number];
/** Four corners, in order around the outline. */
export type Quad = [Point, Point, Point, Point];
/** Axis-aligned box [x, y, w, h]. */
export type Box = [number, number, number, number];

/** Applies a 3×3 homography (row-major) to a point; null when the point maps to infinity or behind the camera. */
export function project(h: ArrayLike<number>, x: number, y: number): Point | null {
  const w = h[6]! * x + h[7]! * y + h[8]!;
  if (!(w > 1e-9)) return null;
  return [(h[0]! * x + h[1]! * y + h[2]!) / w, (h[3]! * x + h[4]! * y + h[5]!) / w];
}

export function projectOutline(h: ArrayLike<number>, outline: readonly [number, number, number, number]): Quad | null {
  const [x0, y0, x1, y1] = outline;
  const corners = [project(h, x0, y0), project(h, x1, y0), project(h, x1, y1), project(h, x0, y1)];
  return corners.every((c) => c !== null) ? (corners as Quad) : null;
}

const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/** Signed area (positive when the corners go clockwise in image coordinates, y down: same turn as the outline). */
export function signedArea(quad: Quad): number {
  let sum = 0;
  for (let i = 0; i < 4; i++) {
    const a = quad[i]!;
    const b = quad[(i + 1) % 4]!;
    sum += a[0] * b[1] - b[0] * a[1];
  }
  return sum / 2;
}

/** Strictly convex and turning the same way as the reference outline (a mirror image is not the logo). */
export function isConvexSameTurn(quad: Quad): boolean {
  for (let i = 0; i < 4; i++) {
    if (!(cross(quad[i]!, quad[(i + 1) % 4]!, quad[(i + 2) % 4]!) > 0)) return false;
  }
  return true;
}

const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/**
 * How much more one side of the projection is scaled than another, comparing each side with the side of the
 * outline it comes from (1 for a similarity transform; large for a degenerate, nearly collapsed homography).
 */
export function sideStretch(quad: Quad, outline: readonly [number, number, number, number]): number {
  const w = outline[2] - outline[0];
  const h = outline[3] - outline[1];
  const scales = [dist(quad[0], quad[1]) / w, dist(quad[1], quad[2]) / h, dist(quad[2], quad[3]) / w, dist(quad[3], quad[0]) / h];
  const max = Math.max(...scales);
  const min = Math.min(...scales);
  return min > 0 ? max / min : Infinity;
}

/** Bounding box of a quad clipped to the frame, or null when nothing of it is inside. */
export function clippedBounds(quad: Quad, width: number, height: number): Box | null {
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const x0 = Math.max(0, Math.min(...xs));
  const y0 = Math.max(0, Math.min(...ys));
  const x1 = Math.min(width, Math.max(...xs));
  const y1 = Math.min(height, Math.max(...ys));
  return x1 > x0 && y1 > y0 ? [x0, y0, x1 - x0, y1 - y0] : null;
}

/** Point inside a convex quad (clockwise, as accepted by isConvexSameTurn), grown by `margin` around its centre. */
export function insideQuad(quad: Quad, x: number, y: number, margin = 0): boolean {
  const cx = (quad[0][0] + quad[1][0] + quad[2][0] + quad[3][0]) / 4;
  const cy = (quad[0][1] + quad[1][1] + quad[2][1] + quad[3][1]) / 4;
  const grow = 1 + margin;
  const q = quad.map(([px, py]) => [cx + (px - cx) * grow, cy + (py - cy) * grow] as Point);
  for (let i = 0; i < 4; i++) if (cross(q[i]!, q[(i + 1) % 4]!, [x, y]) < 0) return false;
  return true;
}

function intersection(a: Box, b: Box): number {
  const ix = Math.max(0, Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]));
  return ix * iy;
}

export function iou(a: Box, b: Box): number {
  const inter = intersection(a, b);
  const union = a[2] * a[3] + b[2] * b[3] - inter;
  return union > 0 ? inter / union : 0;
}

/** Intersection over the smaller box's area: 1 when one box lies inside the other. */
export function intersectionOverSmaller(a: Box, b: Box): number {
  const smaller = Math.min(a[2] * a[3], b[2] * b[3]);
  return smaller > 0 ? intersection(a, b) / smaller : 0;
}
