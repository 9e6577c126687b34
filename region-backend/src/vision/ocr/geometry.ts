/**
 * Plane geometry for text boxes: convex hull and minimum-area rectangle (what OpenCV's `minAreaRect` gives),
 * so the DB post-processing needs no OpenCV. Points are pixel centres in image coordinates.
 */
export interface Point {
  x: number;
  y: number;
}

/** Four corners ordered top-left, top-right, bottom-right, bottom-left (as PaddleOCR's `get_mini_boxes`). */
export type Quad = [Point, Point, Point, Point];

const cross = (o: Point, a: Point, b: Point): number => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);

/** Convex hull (Andrew's monotone chain), counter-clockwise in a y-down frame, no collinear points. */
export function convexHull(points: Point[]): Point[] {
  if (points.length < 3) return [...points];
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const lower: Point[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = sorted.length - 1; i >= 0; i--) {
    const p = sorted[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  lower.pop();
  upper.pop();
  return lower.concat(upper);
}

export interface RotatedRect {
  center: Point;
  /** Extent along `axis` and along its normal. */
  width: number;
  height: number;
  /** Unit vector of the `width` side. */
  axis: Point;
}

/** Smallest-area enclosing rectangle of a point set (rotating calipers over the hull's edges). */
export function minAreaRect(points: Point[]): RotatedRect {
  const hull = convexHull(points);
  if (hull.length === 0) return { center: { x: 0, y: 0 }, width: 0, height: 0, axis: { x: 1, y: 0 } };
  if (hull.length < 3) {
    const a = hull[0]!;
    const b = hull[hull.length - 1]!;
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const axis = len > 0 ? { x: (b.x - a.x) / len, y: (b.y - a.y) / len } : { x: 1, y: 0 };
    return { center: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, width: len, height: 0, axis };
  }
  let best: RotatedRect | null = null;
  let bestArea = Infinity;
  for (let i = 0; i < hull.length; i++) {
    const p = hull[i]!;
    const q = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    if (len === 0) continue;
    const ux = (q.x - p.x) / len;
    const uy = (q.y - p.y) / len;
    let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
    for (const h of hull) {
      const u = h.x * ux + h.y * uy;
      const v = -h.x * uy + h.y * ux;
      if (u < minU) minU = u;
      if (u > maxU) maxU = u;
      if (v < minV) minV = v;
      if (v > maxV) maxV = v;
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const cu = (minU + maxU) / 2;
      const cv = (minV + maxV) / 2;
      best = {
        center: { x: cu * ux - cv * uy, y: cu * uy + cv * ux },
        width: maxU - minU,
        height: maxV - minV,
        axis: { x: ux, y: uy },
      };
    }
  }
  return best!;
}

/** The rectangle's corners, ordered top-left, top-right, bottom-right, bottom-left. */
export function rectCorners(rect: RotatedRect): Quad {
  const { center: c, axis: a } = rect;
  const hw = rect.width / 2;
  const hh = rect.height / 2;
  const n = { x: -a.y, y: a.x };
  const pts: Point[] = [
    { x: c.x - a.x * hw - n.x * hh, y: c.y - a.y * hw - n.y * hh },
    { x: c.x + a.x * hw - n.x * hh, y: c.y + a.y * hw - n.y * hh },
    { x: c.x + a.x * hw + n.x * hh, y: c.y + a.y * hw + n.y * hh },
    { x: c.x - a.x * hw + n.x * hh, y: c.y - a.y * hw + n.y * hh },
  ];
  return orderCorners(pts);
}

/**
 * PaddleOCR's ordering: sort by x; of the two left-most points the upper is top-left, of the two
 * right-most the upper is top-right.
 */
export function orderCorners(pts: Point[]): Quad {
  const s = [...pts].sort((a, b) => a.x - b.x || a.y - b.y);
  const [l1, l2, r1, r2] = s as [Point, Point, Point, Point];
  const [tl, bl] = l1.y <= l2.y ? [l1, l2] : [l2, l1];
  const [tr, br] = r1.y <= r2.y ? [r1, r2] : [r2, r1];
  return [tl, tr, br, bl];
}

/** Grows a rectangle by `distance` on every side (polygon offsetting of a rectangle, then its min-area box). */
export function expandRect(rect: RotatedRect, distance: number): RotatedRect {
  return { ...rect, width: rect.width + 2 * distance, height: rect.height + 2 * distance };
}

/** Axis-aligned bounds of a quad. */
export function quadBounds(q: Quad): { left: number; top: number; right: number; bottom: number } {
  const xs = q.map((p) => p.x);
  const ys = q.map((p) => p.y);
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}
