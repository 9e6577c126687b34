/**
 * Garment regions and body measurements of one parsed person (working resolution):
 * - the body lines (shoulders, waist split, knees, ankles) from pose keypoints, or from the person box in
 *   typical proportions when a keypoint is not visible;
 * - upper region = the person's clothing above the waist split (arms included), lower region = below it;
 * - sleeve cover along the arm segments, leg separation between the knees, how far the upper garment's
 *   colour continues below the waist (long coats and dresses), hem and knee widths against the hip width.
 */
import type { Lab } from '../color/color-space.js';
import type { ParsedPerson, ParsedPicture } from './person-parsing.js';
import { KP } from './person-models.js';

export interface RegionMask {
  /** 255 inside, at working resolution. */
  data: Uint8Array;
  width: number;
  height: number;
  /** Bounding box in working pixels: x0, y0, x1 (exclusive), y1 (exclusive). */
  bounds: [number, number, number, number];
  pixels: number;
}

export interface BodyLines {
  shoulderY: number;
  waistY: number;
  hipY: number;
  kneeY: number;
  ankleY: number;
  torso: number;
  hipWidth: number;
  centreX: number;
}

export type Sleeve = 'none' | 'short' | 'long' | 'unknown';

const KP_MIN = 0.3;

function point(p: ParsedPerson, k: number, w: number, h: number): { x: number; y: number } | null {
  const kp = p.pose.keypoints[k];
  return kp && kp.score >= KP_MIN ? { x: kp.x * w, y: kp.y * h } : null;
}

function meanY(points: ({ x: number; y: number } | null)[]): number | null {
  const seen = points.filter((q) => q !== null);
  return seen.length ? seen.reduce((s, q) => s + q.y, 0) / seen.length : null;
}

export function bodyLines(picture: ParsedPicture, person: ParsedPerson): BodyLines {
  const { width: w, height: h } = picture.work;
  const [bx, by, bw, bh] = person.pose.box;
  const top = by * h;
  const height = bh * h;
  const at = (k: number) => point(person, k, w, h);
  const shoulderY = meanY([at(KP.leftShoulder), at(KP.rightShoulder)]) ?? top + 0.2 * height;
  const hipY = meanY([at(KP.leftHip), at(KP.rightHip)]) ?? shoulderY + 0.32 * height;
  const torso = Math.max(4, hipY - shoulderY);
  const kneeY = meanY([at(KP.leftKnee), at(KP.rightKnee)]) ?? hipY + 0.9 * torso;
  const ankleY = meanY([at(KP.leftAnkle), at(KP.rightAnkle)]) ?? kneeY + 0.9 * torso;
  const lh = at(KP.leftHip);
  const rh = at(KP.rightHip);
  const ls = at(KP.leftShoulder);
  const rs = at(KP.rightShoulder);
  // Hip joints sit inside the body: the hip width is about 1.6× their distance.
  const hipWidth = lh && rh ? 1.6 * Math.abs(lh.x - rh.x) : ls && rs ? 1.1 * Math.abs(ls.x - rs.x) : 0.35 * bw * w;
  const xs = [lh, rh, ls, rs].filter((q) => q !== null).map((q) => q.x);
  const centreX = xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : (bx + bw / 2) * w;
  return { shoulderY, waistY: hipY - 0.12 * torso, hipY, kneeY, ankleY, torso, hipWidth: Math.max(2, hipWidth), centreX };
}

/** The person's clothing pixels with `y` in [y0, y1). */
export function regionMask(picture: ParsedPicture, person: ParsedPerson, y0: number, y1: number): RegionMask | null {
  const { width: w, height: h } = picture.work;
  const data = new Uint8Array(w * h);
  let pixels = 0;
  let x0 = w, x1 = 0, top = h, bottom = 0;
  for (let y = Math.max(0, Math.floor(y0)); y < Math.min(h, Math.ceil(y1)); y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (picture.owner[i] !== person.index || !picture.garment.data[i]) continue;
      data[i] = 255;
      pixels++;
      if (x < x0) x0 = x;
      if (x >= x1) x1 = x + 1;
      if (y < top) top = y;
      if (y >= bottom) bottom = y + 1;
    }
  }
  return pixels ? { data, width: w, height: h, bounds: [x0, top, x1, bottom], pixels } : null;
}

/** Garment share of the person's pixels sampled along a limb segment (t from `t0` to `t1`). */
function segmentCover(picture: ParsedPicture, person: ParsedPerson, a: number, b: number, t0: number, t1: number): number | null {
  const { width: w, height: h } = picture.work;
  const p = point(person, a, w, h);
  const q = point(person, b, w, h);
  if (!p || !q) return null;
  let garment = 0, body = 0;
  for (let s = 0; s <= 6; s++) {
    const t = t0 + ((t1 - t0) * s) / 6;
    const cx = Math.round(p.x + (q.x - p.x) * t);
    const cy = Math.round(p.y + (q.y - p.y) * t);
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= w || y >= h) continue;
        const i = y * w + x;
        if (picture.owner[i] !== person.index) continue;
        if (picture.garment.data[i]) garment++;
        else body++;
      }
    }
  }
  return garment + body >= 5 ? garment / (garment + body) : null;
}

export function sleeveLength(picture: ParsedPicture, person: ParsedPerson): Sleeve {
  const arms = [
    [KP.leftShoulder, KP.leftElbow, KP.leftWrist],
    [KP.rightShoulder, KP.rightElbow, KP.rightWrist],
  ] as const;
  let upper = 0, fore = 0, nUpper = 0, nFore = 0;
  for (const [s, e, wr] of arms) {
    const u = segmentCover(picture, person, s, e, 0.1, 0.45);
    const f = segmentCover(picture, person, e, wr, 0.25, 0.75);
    if (u !== null) { upper += u; nUpper++; }
    if (f !== null) { fore += f; nFore++; }
  }
  if (!nUpper && !nFore) return 'unknown';
  if (nFore && fore / nFore >= 0.5) return 'long';
  if (nUpper && upper / nUpper >= 0.5) return 'short';
  return 'none';
}

/** Skin share around the shoulders (strap tops and bare shoulders). */
export function shoulderSkin(picture: ParsedPicture, person: ParsedPerson): number {
  const { width: w, height: h } = picture.work;
  let skin = 0, all = 0;
  for (const k of [KP.leftShoulder, KP.rightShoulder]) {
    const p = point(person, k, w, h);
    if (!p) continue;
    const r = Math.max(2, Math.round(0.08 * bodyLines(picture, person).torso));
    for (let y = Math.round(p.y - r); y <= p.y + r; y++) {
      for (let x = Math.round(p.x - r); x <= p.x + r; x++) {
        if (x < 0 || y < 0 || x >= w || y >= h) continue;
        const i = y * w + x;
        if (picture.owner[i] !== person.index) continue;
        all++;
        if (picture.skin[i]) skin++;
      }
    }
  }
  return all ? skin / all : 0;
}

/** Share of the gap between the knees (above them) that is not this person: legs apart = trousers. */
export function legGap(picture: ParsedPicture, person: ParsedPerson, lines: BodyLines): number | null {
  const { width: w, height: h } = picture.work;
  const lk = point(person, KP.leftKnee, w, h);
  const rk = point(person, KP.rightKnee, w, h);
  if (!lk || !rk || Math.abs(lk.x - rk.x) < 3) return null;
  const xa = Math.min(lk.x, rk.x), xb = Math.max(lk.x, rk.x);
  const ya = lines.hipY + 0.55 * (lines.kneeY - lines.hipY);
  let gap = 0, all = 0;
  for (let y = Math.round(ya); y <= Math.round(lines.kneeY); y++) {
    for (let x = Math.round(xa + 0.3 * (xb - xa)); x <= Math.round(xb - 0.3 * (xb - xa)); x++) {
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      all++;
      if (picture.owner[y * w + x] !== person.index) gap++;
    }
  }
  return all ? gap / all : null;
}

/** Width of a region's pixels in the row band [y0, y1), averaged per row. */
export function bandWidth(region: RegionMask, y0: number, y1: number): number {
  let total = 0, rows = 0;
  for (let y = Math.max(region.bounds[1], Math.floor(y0)); y < Math.min(region.bounds[3], Math.ceil(y1)); y++) {
    let n = 0;
    for (let x = region.bounds[0]; x < region.bounds[2]; x++) if (region.data[y * region.width + x]) n++;
    total += n;
    rows++;
  }
  return rows ? total / rows : 0;
}

/** Fraction of the lower region's rows, from its top, in which the upper garment's colour dominates. */
export function upperColourReach(picture: ParsedPicture, lower: RegionMask, upperColour: Lab, lab: (i: number) => Lab): number {
  const [x0, y0, x1, y1] = lower.bounds;
  let reach = y0;
  for (let y = y0; y < y1; y++) {
    let match = 0, n = 0;
    for (let x = x0; x < x1; x++) {
      const i = y * lower.width + x;
      if (!lower.data[i]) continue;
      n++;
      const c = lab(i);
      if (Math.hypot(c[0] - upperColour[0], c[1] - upperColour[1], c[2] - upperColour[2]) < 16) match++;
    }
    if (n && match / n < 0.5) break;
    reach = y + 1;
  }
  return reach;
}
