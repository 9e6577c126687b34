/** Turns a palette into the colour services' result items for a granularity and return type. */
import { BASIC_COLORS, type Lang } from '@iris/shared';
import type { ColorCluster } from '../../../vision/color/color-clustering.js';
import { cncsNotation } from '../../../vision/color/cncs-notation.js';
import { nearestIsccNbs, nearestW3c } from '../../../vision/color/color-names.js';
import { labToRgb, rgbToHex } from '../../../vision/color/color-space.js';
import type { Granularity, ReturnType } from './color-params.js';
import { ncsNotation } from '../../../vision/color/ncs-notation.js';

/** `detailed` answers up to this many colours; `major` and `detailed` only colours holding at least `MIN_SHARE`. */
export const DETAILED_MAX = 8;
export const MIN_SHARE = 0.03;

/** Picks the colours a granularity answers from a palette sorted by weight and renormalises their shares. */
export function selectColors(palette: readonly ColorCluster[], granularity: Granularity): ColorCluster[] {
  const limit = granularity === 'dominant' ? 1 : granularity === 'major' ? 2 : DETAILED_MAX;
  const chosen = palette.slice(0, limit).filter((c, i) => i === 0 || c.weight >= MIN_SHARE);
  const total = chosen.reduce((s, c) => s + c.weight, 0);
  if (total <= 0) return [];
  const shares = chosen.map((c) => Math.round((c.weight / total) * 1e4) / 1e4);
  // Rounding must not break the sum: the largest colour takes the remainder.
  shares[0] = Math.round((1 - shares.slice(1).reduce((s, v) => s + v, 0)) * 1e4) / 1e4;
  return chosen.map((c, i) => ({ lab: c.lab, weight: shares[i]! }));
}

export interface ColorItemBase {
  freq: number;
  hex: string;
  rgb: [number, number, number];
}

export function colorItem(cluster: ColorCluster, returnType: ReturnType, lang: Lang): ColorItemBase & Record<string, unknown> {
  const rgb = labToRgb(...cluster.lab);
  const base: ColorItemBase = { freq: cluster.weight, hex: rgbToHex(rgb), rgb };
  switch (returnType) {
    case 'basic': {
      const basic = BASIC_COLORS[nearestIsccNbs(cluster.lab).basic];
      return { ...base, basic: lang === 'zh' ? basic.zh : basic.en };
    }
    case 'w3c': {
      const w3c = nearestW3c(cluster.lab);
      return { ...base, w3c: lang === 'zh' ? w3c.zh : w3c.name };
    }
    case 'ncs':
      return { ...base, ncs: ncsNotation(cluster.lab) };
    case 'cncs':
      return { ...base, cncs: cncsNotation(cluster.lab, lang) };
  }
}
