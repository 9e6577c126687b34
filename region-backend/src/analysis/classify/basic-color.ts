/**
 * Names a pixel with one of the basic colour terms (black, white, gray, red, orange, yellow, green, cyan,
 * blue, purple, pink, brown) from its hue, saturation and value. Coarse on purpose: general tagging only needs
 * the dominant colour words of a picture; the colour services have their own CIELAB-based naming.
 */
import type { BasicColorId } from '@iris/shared';

export function rgbToHsv(r: number, g: number, b: number): [h: number, s: number, v: number] {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const v = max / 255;
  const d = max - min;
  const s = max === 0 ? 0 : d / max;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h *= 60;
    if (h < 0) h += 360;
  }
  return [h, s, v];
}

export function basicColorOf(r: number, g: number, b: number): BasicColorId {
  const [h, s, v] = rgbToHsv(r, g, b);
  if (v < 0.18) return 'black';
  if (s < 0.14) return v > 0.82 ? 'white' : v < 0.3 ? 'black' : 'gray';
  if (s < 0.25 && v > 0.9) return 'white';
  if (h < 15 || h >= 340) {
    if (v < 0.55 && s > 0.35) return 'brown';
    return s < 0.5 && v > 0.7 ? 'pink' : 'red';
  }
  if (h < 45) return v < 0.6 || s < 0.45 ? 'brown' : 'orange';
  if (h < 68) return v < 0.5 ? 'brown' : 'yellow';
  if (h < 165) return 'green';
  if (h < 195) return 'cyan';
  if (h < 255) return 'blue';
  if (h < 290) return 'purple';
  return s < 0.6 && v > 0.6 ? 'pink' : 'purple';
}
