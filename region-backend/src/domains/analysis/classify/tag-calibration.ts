/**
 * Calibrated tag scores: each kind of object evidence maps its raw detector score to the share of such tags
 * that were right on hand-labelled photos, through an isotonic (monotone) fit. The fitted tables are
 * `tag-calibration.table.ts`, written by `npm run eval -- tagging` (docs/vision-services.md, "General
 * tagging"); between two fitted points the probability is interpolated linearly, beyond the ends it is held.
 */
import { TAG_CALIBRATION } from './tag-calibration.table.js';

/** Object evidence: the detector on the picture, and on the picture framed by a margin (close-ups, cut-outs). */
export type EvidenceKind = 'object' | 'object-framed';

export interface CalibrationCurve {
  /** Raw scores, increasing. */
  raw: readonly number[];
  /** The probability at each raw score, non-decreasing, in 0..1. */
  p: readonly number[];
}

export type CalibrationTable = Readonly<Record<EvidenceKind, CalibrationCurve>>;

export function calibrate(curve: CalibrationCurve, raw: number): number {
  const { raw: xs, p } = curve;
  if (!xs.length) return 0;
  if (!(raw > xs[0]!)) return p[0]!;
  const last = xs.length - 1;
  if (raw >= xs[last]!) return p[last]!;
  let i = 1;
  while (xs[i]! < raw) i++;
  const t = (raw - xs[i - 1]!) / (xs[i]! - xs[i - 1]!);
  return p[i - 1]! + t * (p[i]! - p[i - 1]!);
}

export function calibratedScore(kind: EvidenceKind, raw: number, table: CalibrationTable = TAG_CALIBRATION): number {
  return calibrate(table[kind], raw);
}

/**
 * Isotonic regression by pool-adjacent-violators: samples (raw score, right or not) sorted by score are merged
 * into blocks until each block's share right is at least the one before; each block gives one point (its
 * mean score, its share right). Samples with the same score share a block.
 */
export function fitIsotonic(samples: readonly { score: number; right: boolean }[]): CalibrationCurve {
  const sorted = [...samples].filter((s) => Number.isFinite(s.score)).sort((a, b) => a.score - b.score);
  const blocks: { sumX: number; sumY: number; n: number }[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    const block = { sumX: 0, sumY: 0, n: 0 };
    while (j < sorted.length && sorted[j]!.score === sorted[i]!.score) {
      block.sumX += sorted[j]!.score;
      block.sumY += sorted[j]!.right ? 1 : 0;
      block.n++;
      j++;
    }
    blocks.push(block);
    i = j;
    while (blocks.length > 1) {
      const b = blocks[blocks.length - 1]!;
      const a = blocks[blocks.length - 2]!;
      if (a.sumY / a.n < b.sumY / b.n) break;
      blocks.splice(-2, 2, { sumX: a.sumX + b.sumX, sumY: a.sumY + b.sumY, n: a.n + b.n });
    }
  }
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return { raw: blocks.map((b) => round(b.sumX / b.n)), p: blocks.map((b) => round(b.sumY / b.n)) };
}
