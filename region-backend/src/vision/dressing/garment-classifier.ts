/**
 * Coarse garment classes from body measurements (garment-regions.ts) and colours. No garment model is
 * available offline, so these are rules over what a person mask and a pose can show:
 * - one colour from the shoulders to the end of the lower garment, ending above the ankles or with the legs
 *   together → a dress (long sleeves → Longsleeve_dress; hem ≥ 1.35× the hip width → A_line_loose_dress;
 *   else Leisure_dress); one long colour on legs apart is a two-piece (suit, tracksuit);
 * - upper colour continuing below mid-thigh and stopping before the lower garment ends → a coat
 *   (beige/khaki → Trenchcoat, else Coat), the lower garment classified from what shows below it;
 * - upper: no sleeves → Sleeveless_tops (Tank_strap_tops with bare shoulders); short sleeves → Tshirt;
 *   long sleeves → Jacket when the front centre differs in colour from the sides (an open front),
 *   Shirt_blouse when light and nearly neutral, else Pullover_tops;
 * - lower: legs together (the space between the knees is covered) and either a wide hem (≥ 1.35× the hip
 *   width → Volumn_skirt) or ending above the ankles → Slim_bottom_skirt; otherwise ending above the knee →
 *   Shorts; long → Long_jeans for denim blue, Slim_pants_leggings when narrow at the knee, else
 *   Leisure_pants. A lower garment cut by the picture's bottom edge counts as long; with the knees not
 *   visible either, it is not classified.
 * Everything else in the item list (shoes, bags, fur, leather, down jackets, …) is not recognised.
 */
import { labToLch, type Lab } from '../color/color-space.js';
import type { Sleeve } from './garment-regions.js';

export interface GarmentMeasures {
  sleeve: Sleeve;
  /** Skin share around the shoulders. */
  shoulderSkin: number;
  hasUpper: boolean;
  hasLower: boolean;
  /** Depths below the hip line in torso lengths: where the upper colour stops, where the lower garment ends. */
  upperReach: number;
  lowerEnd: number;
  kneeDepth: number;
  ankleDepth: number;
  /** The lower garment runs out of the picture (its end is not seen) and whether the knees are visible. */
  lowerCut: boolean;
  kneesVisible: boolean;
  /** Share of the space between the knees that is background (null when the knees are not visible). */
  legGap: number | null;
  /** Hem width / hip width, knee-row width / hip width. */
  hemFlare: number;
  kneeWidth: number;
  upperColour: Lab | null;
  lowerColour: Lab | null;
  /** The front centre of the upper garment differs in colour from its sides. */
  openFront: boolean;
}

export interface GarmentItems {
  /** A one-piece garment (dress) covering upper and lower regions. */
  dress?: string;
  upper?: string;
  lower?: string;
  /** The upper item is long (coat) and its box extends over the lower region. */
  longUpper?: boolean;
}

/** Denim: a greyish to medium blue (CIELAB hue 230–300°, chroma 8–50, L* 15–65). */
export function isDenim(lab: Lab): boolean {
  const [L, C, h] = labToLch(lab);
  return h >= 230 && h <= 300 && C >= 8 && C <= 50 && L >= 15 && L <= 65;
}

function isBeige(lab: Lab): boolean {
  const [L, C, h] = labToLch(lab);
  return L >= 50 && C >= 8 && C <= 40 && h >= 50 && h <= 95;
}

function isLightNeutral(lab: Lab): boolean {
  const [L, C] = labToLch(lab);
  return L >= 72 && C <= 14;
}

export function classifyGarments(m: GarmentMeasures): GarmentItems {
  const together = m.legGap !== null && m.legGap < 0.3;
  const long = m.lowerCut || m.lowerEnd >= m.ankleDepth - 0.35;
  // One colour from the shoulders to the end of the lower garment: a dress, unless it is a long garment on
  // legs apart (a suit or tracksuit of one colour: classified as two pieces).
  const oneColour = m.hasUpper && m.hasLower && m.upperReach >= m.lowerEnd - 0.15;
  if (oneColour && (!long || together)) {
    const dress = m.sleeve === 'long' ? 'Longsleeve_dress' : m.hemFlare >= 1.35 ? 'A_line_loose_dress' : 'Leisure_dress';
    return { dress };
  }
  const longUpper = m.hasUpper && !oneColour && m.upperReach >= 0.55;
  const out: GarmentItems = {};
  if (m.hasUpper) {
    if (longUpper) {
      out.upper = m.upperColour && isBeige(m.upperColour) ? 'Trenchcoat' : 'Coat';
      out.longUpper = true;
    } else if (m.sleeve === 'none') out.upper = m.shoulderSkin >= 0.5 ? 'Tank_strap_tops' : 'Sleeveless_tops';
    else if (m.sleeve === 'short') out.upper = 'Tshirt';
    else if (m.openFront) out.upper = 'Jacket';
    else if (m.upperColour && isLightNeutral(m.upperColour)) out.upper = 'Shirt_blouse';
    else out.upper = 'Pullover_tops';
  }
  if (m.hasLower && !(m.lowerCut && !m.kneesVisible)) {
    const aboveKnee = !m.lowerCut && m.lowerEnd < m.kneeDepth + 0.1;
    if (together && (m.hemFlare >= 1.35 || !long)) out.lower = m.hemFlare >= 1.35 ? 'Volumn_skirt' : 'Slim_bottom_skirt';
    else if (aboveKnee) out.lower = 'Shorts';
    else if (m.lowerColour && isDenim(m.lowerColour)) out.lower = 'Long_jeans';
    else if (m.kneeWidth > 0 && m.kneeWidth <= 0.75) out.lower = 'Slim_pants_leggings';
    else out.lower = 'Leisure_pants';
  }
  return out;
}
