/**
 * Skin detection for the outfit colour service and fashion analysis.
 * - Generic rule (Chai & Ngan 1999): a pixel is skin-like when 77 ≤ Cb ≤ 127 and 133 ≤ Cr ≤ 173 (ITU-R
 *   BT.601 YCbCr) and it is not too dark. Beige or tan clothes pass this rule too, so it is used only to
 *   find the person's own skin tone in the face, or as a last resort.
 * - Person tone: the mean CIELAB of skin-like face pixels; skin = within `TONE_DELTA_E` of that tone.
 */
import { deltaE76, type Lab } from './color-space.js';

export const TONE_DELTA_E = 14;

export function isSkinLike(r: number, g: number, b: number): boolean {
  const y = 0.299 * r + 0.587 * g + 0.114 * b;
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  return y > 40 && cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173;
}

export function isSkinTone(lab: Lab, tone: Lab): boolean {
  return deltaE76(lab, tone) < TONE_DELTA_E;
}
