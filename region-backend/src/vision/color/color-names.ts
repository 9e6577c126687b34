/**
 * Colour naming: the nearest W3C named colour and the nearest ISCC–NBS centroid (which also gives the basic
 * colour term), both by CIEDE2000 over precomputed CIELAB values.
 */
import { ISCC_NBS_COLORS, W3C_COLORS, type IsccNbsColor, type NamedColor } from '@iris/shared';
import { ciede2000, hexToLab, type Lab } from './color-space.js';

const W3C_LAB = W3C_COLORS.map((c) => ({ color: c, lab: hexToLab(c.hex) }));
const ISCC_LAB = ISCC_NBS_COLORS.map((c) => ({ color: c, lab: hexToLab(c.hex) }));

function nearest<T>(lab: Lab, table: readonly { color: T; lab: Lab }[]): T {
  let best = table[0]!;
  let bestD = Infinity;
  for (const entry of table) {
    const d = ciede2000(lab, entry.lab);
    // Strictly smaller: on ties (equal colours under two keywords) the first, alphabetically first, wins.
    if (d < bestD) {
      bestD = d;
      best = entry;
    }
  }
  return best.color;
}

export function nearestW3c(lab: Lab): NamedColor {
  return nearest(lab, W3C_LAB);
}

/** The ISCC–NBS block a colour falls in (approximated by the nearest centroid). */
export function nearestIsccNbs(lab: Lab): IsccNbsColor {
  return nearest(lab, ISCC_LAB);
}
