/**
 * An approximate CNCS (China National Colour System, GSB 05-1426-2001) notation: a seven-digit code
 * HHH LL CC = hue (001–160 on a 160-step hue circle), lightness (00–99) and chroma (00–99).
 *
 * CNCS is defined by measured samples; without the sample table we compute the three attributes from
 * CIELAB, which CNCS's attributes track (a Munsell-like hue/lightness/chroma solid): hue = CIELAB hue angle
 * cut into 160 equal steps (step 001 starts at h = 0°, so hue numbers are not the atlas's), lightness = L*,
 * chroma = C*ab. Colours with C* < 1.5 are neutral: hue 000. `rgb` is the sRGB of the code's centre, and
 * `color` the name of the ISCC–NBS block the colour falls in.
 */
import type { Lang } from '@iris/shared';
import { nearestIsccNbs } from './color-names.js';
import { labToLch, labToRgb, type Lab } from './color-space.js';

export interface CncsValue {
  chroma: string;
  cncs: string;
  color: string;
  lightness: string;
  rgb: [string, string, string];
}

const HUE_STEPS = 160;
const NEUTRAL_CHROMA = 1.5;

export function cncsNotation(lab: Lab, lang: Lang): CncsValue {
  const [L, C, h] = labToLch(lab);
  const neutral = C < NEUTRAL_CHROMA;
  const hueStep = neutral ? 0 : Math.min(HUE_STEPS - 1, Math.floor((h / 360) * HUE_STEPS)) + 1;
  const lightness = Math.max(0, Math.min(99, Math.round(L)));
  const chroma = neutral ? 0 : Math.max(0, Math.min(99, Math.round(C)));
  const centreHue = ((hueStep - 0.5) * 360) / HUE_STEPS;
  const centre = labToRgb(
    lightness,
    chroma * Math.cos((centreHue * Math.PI) / 180),
    chroma * Math.sin((centreHue * Math.PI) / 180),
  );
  const name = nearestIsccNbs(lab);
  const two = (n: number) => String(n).padStart(2, '0');
  return {
    chroma: two(chroma),
    cncs: String(hueStep).padStart(3, '0') + two(lightness) + two(chroma),
    color: lang === 'zh' ? name.zh : name.en,
    lightness: two(lightness),
    rgb: centre.map(String) as [string, string, string],
  };
}
