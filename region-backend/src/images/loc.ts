/**
 * The `loc` request parameter: a region of the query image as fractions of its size, x-y-w-h with the
 * origin at the top-left. Clients send it hyphen-joined (`0.1-0.2-0.5-0.5`, the documented form), as JSON
 * (`[0.1,0.2,0.5,0.5]`), comma- or space-joined, as a Python tuple's text, or as a repeated form field.
 */
import { ImageDecodeError } from './image-errors.js';

export type Loc = [x: number, y: number, w: number, h: number];

/** Tolerance for clients that compute fractions in floating point (0.1 + 0.9 may exceed 1). */
const EPSILON = 1e-6;
const NUMBER = String.raw`(\d+(?:\.\d*)?|\.\d+)`;
const HYPHEN_FORM = new RegExp(`^${NUMBER}-${NUMBER}-${NUMBER}-${NUMBER}$`);

const badLoc = (message: string) => new ImageDecodeError('bad-crop', message);

/** Longest `loc` text accepted; checked before any parsing (four numbers need far fewer characters). */
export const MAX_LOC_CHARS = 200;

/** Linear-time split: no regex here can backtrack (bracket stripping and separators are plain scans). */
function splitText(text: string): string[] {
  if (text.length > MAX_LOC_CHARS) throw badLoc(`loc must be at most ${MAX_LOC_CHARS} characters`);
  let inner = text.trim();
  const hyphen = HYPHEN_FORM.exec(inner);
  if (hyphen) return hyphen.slice(1);
  if (inner.startsWith('[') || inner.startsWith('(')) inner = inner.slice(1);
  if (inner.endsWith(']') || inner.endsWith(')')) inner = inner.slice(0, -1);
  return inner.split(/[,;\s]+/).filter((p) => p !== '');
}

/** Parses and validates a loc; the whole image is [0, 0, 1, 1]. Throws ImageDecodeError('bad-crop'). */
export function parseLoc(input: string | readonly (string | number)[]): Loc {
  if (typeof input !== 'string' && input.length > 4) throw badLoc('loc must be four numbers x-y-w-h');
  const parts = typeof input === 'string' ? splitText(input) : input.length === 1 && typeof input[0] === 'string' ? splitText(input[0]) : input;
  if (parts.length !== 4) throw badLoc('loc must be four numbers x-y-w-h');
  const values = parts.map((p) => (typeof p === 'number' ? p : p.trim() === '' ? NaN : Number(p)));
  if (values.some((v) => !Number.isFinite(v))) throw badLoc('loc must be four numbers x-y-w-h');
  const [x, y, w, h] = values as Loc;
  if (x < -EPSILON || y < -EPSILON) throw badLoc('loc x and y must be at least 0');
  if (w <= 0 || h <= 0) throw badLoc('loc w and h must be greater than 0');
  if (x + w > 1 + EPSILON || y + h > 1 + EPSILON) throw badLoc('loc must lie inside the image: x + w and y + h must be at most 1');
  const cx = Math.min(1, Math.max(0, x));
  const cy = Math.min(1, Math.max(0, y));
  const cw = Math.min(w, 1 - cx);
  const ch = Math.min(h, 1 - cy);
  if (cw <= 0 || ch <= 0) throw badLoc('loc must lie inside the image: x + w and y + h must be at most 1');
  return [cx, cy, cw, ch];
}

/** The pixel rectangle of a loc in an image of the given size, at least one pixel each way. */
export function locToPixels(loc: Loc, width: number, height: number): { left: number; top: number; width: number; height: number } {
  const left = Math.min(width - 1, Math.floor(loc[0] * width));
  const top = Math.min(height - 1, Math.floor(loc[1] * height));
  const right = Math.max(left + 1, Math.min(width, Math.round((loc[0] + loc[2]) * width)));
  const bottom = Math.max(top + 1, Math.min(height, Math.round((loc[1] + loc[3]) * height)));
  return { left, top, width: right - left, height: bottom - top };
}
