/**
 * Photometric check of a keypoint detection: the reference artwork, shrunk to a small template, is compared
 * with the query pixels under the found homography by normalised cross-correlation (blurred, masked by the
 * artwork's alpha). Keypoints can agree on a shared element (an emblem, a common word) of two different
 * logos; the whole artwork does not.
 */

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Grey levels and coverage mask (0/255) of a reference, `width × height` each, grey first. */
export interface Template {
  width: number;
  height: number;
  /** `width × height` grey bytes followed by `width × height` mask bytes. */
  pixels: Uint8Array;
}

/** Halves a grey image (2×2 means). */
function halve(image: GreyImage): GreyImage {
  const width = Math.max(1, image.width >> 1);
  const height = Math.max(1, image.height >> 1);
  const data = new Uint8Array(width * height);
  const src = image.data;
  const w = image.width;
  for (let y = 0; y < height; y++) {
    const r0 = 2 * y * w;
    const r1 = Math.min(2 * y + 1, image.height - 1) * w;
    for (let x = 0; x < width; x++) {
      const x0 = 2 * x;
      const x1 = Math.min(2 * x + 1, w - 1);
      data[y * width + x] = (src[r0 + x0]! + src[r0 + x1]! + src[r1 + x0]! + src[r1 + x1]! + 2) >> 2;
    }
  }
  return { data, width, height };
}

/** A query's grey image and its halvings, built on demand: templates are sampled near their own scale. */
export class GreyPyramid {
  private readonly levels: GreyImage[];

  constructor(base: GreyImage) {
    this.levels = [base];
  }

  level(k: number): GreyImage {
    while (this.levels.length <= k) this.levels.push(halve(this.levels[this.levels.length - 1]!));
    return this.levels[k]!;
  }
}

function boxBlur3(values: Float32Array, width: number, height: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          sum += values[yy * width + xx]!;
          n++;
        }
      }
      out[y * width + x] = sum / n;
    }
  }
  return out;
}

export interface Correlation {
  /** Normalised cross-correlation over the covered artwork pixels, -1…1. */
  ncc: number;
  /** The same on the band-pass (fine minus coarse blur) images: details such as letter shapes, not the layout. */
  detail: number;
  /** Fraction of the artwork's pixels that fall inside the query picture. */
  coverage: number;
}

/**
 * Correlation of a template with the query under `h`, a homography from template pixel coordinates to the
 * query's base-level pixel coordinates.
 */
export function templateCorrelation(template: Template, h: ArrayLike<number>, pyramid: GreyPyramid): Correlation {
  const { width: tw, height: th } = template;
  const n = tw * th;
  // Size of one template pixel in the query: pick the pyramid level where it is about one pixel.
  const corner = (x: number, y: number) => {
    const w = h[6]! * x + h[7]! * y + h[8]!;
    return [(h[0]! * x + h[1]! * y + h[2]!) / w, (h[3]! * x + h[4]! * y + h[5]!) / w] as const;
  };
  const q = [corner(0, 0), corner(tw, 0), corner(tw, th), corner(0, th)];
  let area = 0;
  for (let i = 0; i < 4; i++) area += q[i]![0] * q[(i + 1) % 4]![1] - q[(i + 1) % 4]![0] * q[i]![1];
  const footprint = Math.sqrt(Math.abs(area / 2) / n);
  const k = Math.max(0, Math.min(8, Math.floor(Math.log2(Math.max(1, footprint)))));
  const image = pyramid.level(k);
  const scale = 2 ** k;
  const sampled = new Float32Array(n);
  const valid = new Uint8Array(n);
  const { data, width: iw, height: ih } = image;
  for (let y = 0; y < th; y++) {
    for (let x = 0; x < tw; x++) {
      const cx = x + 0.5;
      const cy = y + 0.5;
      const w = h[6]! * cx + h[7]! * cy + h[8]!;
      if (!(w > 1e-9)) continue;
      const u = ((h[0]! * cx + h[1]! * cy + h[2]!) / w) / scale - 0.5;
      const v = ((h[3]! * cx + h[4]! * cy + h[5]!) / w) / scale - 0.5;
      if (u < 0 || v < 0 || u > iw - 1 || v > ih - 1) continue;
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const x1 = Math.min(iw - 1, x0 + 1);
      const y1 = Math.min(ih - 1, y0 + 1);
      const fx = u - x0;
      const fy = v - y0;
      const top = data[y0 * iw + x0]! * (1 - fx) + data[y0 * iw + x1]! * fx;
      const bottom = data[y1 * iw + x0]! * (1 - fx) + data[y1 * iw + x1]! * fx;
      sampled[y * tw + x] = top * (1 - fy) + bottom * fy;
      valid[y * tw + x] = 1;
    }
  }
  const query = boxBlur3(sampled, tw, th);
  const reference = boxBlur3(Float32Array.from(template.pixels.subarray(0, n)), tw, th);
  const mask = new Uint8Array(n);
  let artwork = 0;
  let covered = 0;
  for (let i = 0; i < n; i++) {
    if (template.pixels[n + i]! < 128) continue;
    artwork++;
    if (!valid[i]) continue;
    mask[i] = 1;
    covered++;
  }
  const coverage = artwork ? covered / artwork : 0;
  if (covered < 16) return { ncc: -1, detail: -1, coverage };
  const coarse = (values: Float32Array) => boxBlur3(boxBlur3(boxBlur3(values, tw, th), tw, th), tw, th);
  const band = (fine: Float32Array) => {
    const c = coarse(fine);
    return fine.map((v, i) => v - c[i]!);
  };
  return { ncc: correlate(query, reference, mask), detail: correlate(band(query), band(reference), mask), coverage };
}

/** Pearson correlation of two images over the masked pixels. */
function correlate(a: Float32Array, b: Float32Array, mask: Uint8Array): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    n++;
    sa += a[i]!;
    sb += b[i]!;
  }
  const ma = sa / n;
  const mb = sb / n;
  let cross = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    cross += x * y;
    va += x * x;
    vb += y * y;
  }
  return va > 0 && vb > 0 ? cross / Math.sqrt(va * vb) : 0;
}
