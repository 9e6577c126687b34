import type { RgbImage } from '../../images/rgb-image.js';
/**
 * Puts back spaces the recogniser dropped. PP-OCR's Chinese recogniser often runs Latin words together
 * ("NOPARKING"); the strip itself still shows the gap. Columns without ink (Otsu threshold, ink being the
 * minority) are found, and a blank run wider than a fraction of the text height becomes a space at the
 * character boundary the CTC time steps place there. Never between two Chinese characters, which are
 * written without spaces however far apart they are printed.
 */

export interface SpaceOptions {
  /** A blank run at least this many text heights wide is a word gap. */
  minGap: number;
}

export const SPACE_DEFAULTS: SpaceOptions = { minGap: 0.4 };

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]/;

function otsu(hist: Uint32Array, total: number): number {
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i]!;
  let sumB = 0, weightB = 0, best = -1, threshold = 127;
  for (let i = 0; i < 256; i++) {
    weightB += hist[i]!;
    if (!weightB) continue;
    const weightF = total - weightB;
    if (!weightF) break;
    sumB += i * hist[i]!;
    const between = weightB * weightF * (sumB / weightB - (sum - sumB) / weightF) ** 2;
    if (between > best) {
      best = between;
      threshold = i;
    }
  }
  return threshold;
}

/** Ink per column of the first `width` columns, and the height of the inked rows. */
function inkProfile(strip: RgbImage): { columns: Uint32Array; textHeight: number } {
  const { width, height, data } = strip;
  const n = width * height;
  const grey = new Uint8Array(n);
  const hist = new Uint32Array(256);
  for (let p = 0; p < n; p++) {
    const v = (data[p * 3]! * 77 + data[p * 3 + 1]! * 150 + data[p * 3 + 2]! * 29) >> 8;
    grey[p] = v;
    hist[v]!++;
  }
  const t = otsu(hist, n);
  let dark = 0;
  for (let i = 0; i <= t; i++) dark += hist[i]!;
  const darkInk = dark <= n / 2;
  const columns = new Uint32Array(width);
  const rows = new Uint32Array(height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = grey[y * width + x]!;
      if (darkInk ? v <= t : v > t) {
        columns[x]!++;
        rows[y]!++;
      }
    }
  }
  const minRow = Math.max(2, width * 0.02);
  let top = 0, bottom = height - 1;
  while (top < bottom && rows[top]! < minRow) top++;
  while (bottom > top && rows[bottom]! < minRow) bottom--;
  return { columns, textHeight: bottom - top + 1 };
}

/**
 * `text` with spaces inserted at wide ink gaps. `steps[i]` is the CTC time step of character i and `stride`
 * the strip pixels per step.
 */
export function recoverSpaces(strip: RgbImage, text: string, steps: number[], stride: number, options: SpaceOptions = SPACE_DEFAULTS): string {
  const chars = [...text];
  if (chars.length < 2 || chars.length !== steps.length) return text;
  const { columns, textHeight } = inkProfile(strip);
  const noise = Math.max(1, Math.floor(strip.height * 0.04));
  const minGap = options.minGap * textHeight;
  const centre = (k: number) => (steps[k]! + 0.5) * stride;
  const spaceAfter = new Set<number>();
  let runStart = -1;
  let seenInk = false;
  for (let x = 0; x <= strip.width; x++) {
    const blank = x < strip.width && columns[x]! <= noise;
    if (blank && runStart < 0) runStart = x;
    if (!blank && runStart >= 0) {
      const runEnd = x;
      // Only gaps between ink: margins at either end are not word gaps.
      if (seenInk && x < strip.width && runEnd - runStart >= minGap) {
        // CTC emits a character at or after its glyph, so the boundary is the last character
        // emitted before the gap ends.
        for (let k = 0; k + 1 < chars.length; k++) {
          if (centre(k) < runEnd && centre(k + 1) >= runEnd) {
            spaceAfter.add(k);
            break;
          }
        }
      }
      runStart = -1;
    }
    if (!blank && x < strip.width) seenInk = true;
  }
  if (!spaceAfter.size) return text;
  let out = '';
  chars.forEach((c, k) => {
    out += c;
    const next = chars[k + 1];
    if (spaceAfter.has(k) && next !== undefined && c !== ' ' && next !== ' ' && !(CJK.test(c) && CJK.test(next))) out += ' ';
  });
  return out;
}
