/**
 * An approximate NCS (Natural Colour System) notation for a colour, such as `S 2030-Y90R`.
 *
 * There is no closed-form sRGB → NCS conversion (NCS is defined by visual samples). We use the widely used
 * NCS → sRGB formula of the `ncs-color` package (the one behind common web colour converters) forward over a
 * grid of notations (40 hues in steps of 10, blackness 05–90, chromaticness 02–90, plus the neutral axis)
 * and answer the notation whose sRGB is nearest by CIEDE2000. Consequence: the hue is right to about one
 * 10-step; blackness and chromaticness are those of the formula, not of the NCS atlas (see docs).
 */
import { createRequire } from 'node:module';
import { ciede2000, hexToLab, type Lab } from './color-space.js';

const require = createRequire(import.meta.url);
const ncsColor = require('ncs-color') as { hex(notation: string): string | null };

const ELEMENTARY = ['Y', 'R', 'B', 'G'] as const;
const BLACKNESS = [5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 85, 90];
const CHROMATICNESS = [2, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 85, 90];
const NEUTRAL_BLACKNESS = [3, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95];

const pad2 = (n: number) => String(n).padStart(2, '0');

function hues(): string[] {
  const out: string[] = [];
  ELEMENTARY.forEach((from, i) => {
    const to = ELEMENTARY[(i + 1) % 4]!;
    out.push(from);
    for (let step = 10; step <= 90; step += 10) out.push(`${from}${step}${to}`);
  });
  return out;
}

interface Candidate { notation: string; lab: Lab }

let grid: Candidate[] | null = null;

function candidates(): Candidate[] {
  if (grid) return grid;
  grid = [];
  for (const s of NEUTRAL_BLACKNESS) {
    const notation = `S ${pad2(s)}00-N`;
    const hex = ncsColor.hex(`NCS ${notation}`);
    if (hex) grid.push({ notation, lab: hexToLab(hex) });
  }
  for (const hue of hues()) {
    for (const s of BLACKNESS) {
      for (const c of CHROMATICNESS) {
        if (s + c > 100) continue;
        const notation = `S ${pad2(s)}${pad2(c)}-${hue}`;
        const hex = ncsColor.hex(`NCS ${notation}`);
        if (hex) grid.push({ notation, lab: hexToLab(hex) });
      }
    }
  }
  return grid;
}

export function ncsNotation(lab: Lab): string {
  let best = '';
  let bestD = Infinity;
  for (const c of candidates()) {
    const d = ciede2000(lab, c.lab);
    if (d < bestD) {
      bestD = d;
      best = c.notation;
    }
  }
  return best;
}
