/**
 * Texture labels of a garment region from its measurements (texture-features.ts). Rules, in order:
 * - Stripe: periodic spectrum, one dominant gradient orientation (coherence ≥ 0.6);
 * - Plaid: periodic, two orientations at least 60° apart holding together ≥ 70 % of the gradient energy;
 * - Polkadots: periodic in two or more directions with no dominant orientation (round marks), and either
 *   many LoG blobs or a lattice of three or more spectral directions;
 * - Contrast: few edges (< 10 % of pixels), two colour blocks each ≥ 20 % and ≥ 25 ΔE apart;
 * - Camo: not one of the above, ≥ 3 earthy colours (olive, brown, khaki, dark green) each ≥ 10 %;
 * - Leopard: not one of the above, tan/brown base (≥ 35 %) with dark spots (10–45 %) in many blobs;
 * - Printing: irregular and busy (edge density ≥ 0.15) with ≥ 4 colours (each ≥ 6 %), two of them vivid
 *   (C* ≥ 20) and ≥ 40° apart in hue;
 * - Pure: few edges and one colour (folds and shading allowed).
 * Not recognised by the default pack: Geometric, Letters, Animals, Human, Floral, Cartoon (floral and other
 * printed motifs come out as Printing).
 */
import { ciede2000, labToLch } from '../color/color-space.js';
import type { TextureFeatures } from './texture-features.js';

export type Texture = 'Stripe' | 'Plaid' | 'Polkadots' | 'Contrast' | 'Camo' | 'Leopard' | 'Printing' | 'Pure';

export const RECOGNISED_TEXTURES: readonly Texture[] = ['Stripe', 'Plaid', 'Polkadots', 'Contrast', 'Camo', 'Leopard', 'Printing', 'Pure'];

export function classifyTexture(f: TextureFeatures): Texture[] {
  const significant = (share: number) => f.colors.filter((c) => c.weight >= share);
  // Periodic: a strong spectral peak at four or more cycles per patch (a lone edge peaks lower).
  const periodic = f.peakShare >= 0.06 && f.peakRadius >= 4 && f.edgeDensity >= 0.06;
  if (periodic && f.coherence >= 0.6 && f.orientation1 >= 0.6) return ['Stripe'];
  if (periodic && f.orientationGap >= 60 && f.orientation2 >= 0.25 && f.orientation1 + f.orientation2 >= 0.7) return ['Plaid'];
  const dotted = f.blobCount >= 10 || (f.peakDirections.length >= 3 && f.peakShare >= 0.09);
  if (periodic && dotted && f.peakDirections.length >= 2 && f.orientation1 < 0.35 && f.coherence < 0.3) return ['Polkadots'];

  const blocks = significant(0.2);
  if (f.edgeDensity < 0.1 && blocks.length >= 2 && ciede2000(blocks[0]!.lab, blocks[1]!.lab) >= 25) return ['Contrast'];

  const lch = (lab: readonly [number, number, number]) => labToLch(lab);
  const earthy = (lab: readonly [number, number, number]) => {
    const [L, C, h] = lch(lab);
    return L <= 72 && C <= 40 && ((h >= 40 && h <= 160) || C < 8);
  };
  const parts = significant(0.1);
  if (parts.length >= 3 && parts.every((c) => earthy(c.lab)) && parts.some((c) => lch(c.lab)[2] >= 85 && lch(c.lab)[1] >= 8)) return ['Camo'];

  const base = f.colors[0];
  if (base && base.weight >= 0.35 && f.blobCount >= 8) {
    const [L, C, h] = lch(base.lab);
    const dark = f.colors.filter((c) => c.lab[0] < 30).reduce((s, c) => s + c.weight, 0);
    if (L >= 40 && L <= 80 && C >= 15 && h >= 45 && h <= 90 && dark >= 0.1 && dark <= 0.45) return ['Leopard'];
  }

  // A print: busy, several colours, and at least two clearly different hues (folds and shadows on a
  // plain garment make many shades of one hue, not several hues).
  const vivid = significant(0.06).map((c) => lch(c.lab)).filter(([, C]) => C >= 20);
  const hueSpread = vivid.some(([, , h1]) => vivid.some(([, , h2]) => Math.min(Math.abs(h1 - h2), 360 - Math.abs(h1 - h2)) >= 40));
  if (!periodic && f.edgeDensity >= 0.15 && significant(0.06).length >= 4 && hueSpread) return ['Printing'];
  if (f.edgeDensity < 0.05 && significant(0.08).length <= 1) return ['Pure'];
  return [];
}
