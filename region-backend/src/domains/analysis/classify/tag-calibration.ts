/**
 * Calibrated object tag scores. An object tag's evidence is the detector's best score for the class in each
 * view of the picture (the picture itself, and the picture framed by a margin; 0 where a view did not find the
 * class); Platt scaling maps them to the probability that the class is in the picture:
 * p = 1 / (1 + e^-(bias + Σ weight[view] · score[view])), fitted on hand-labelled photos so that tags answered
 * with 0.8 were right about 80 % of the time there. The fitted weights are `tag-calibration.table.ts`, written
 * by `npm run eval -- tagging` (docs/vision-services.md, "General tagging").
 */
import { TAG_CALIBRATION } from './tag-calibration.table.js';

/** Views the detector looked at: the picture, and the picture framed by a margin (close-ups, cut-outs). */
export const EVIDENCE_KINDS = ['object', 'object-framed'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export type ViewScores = Readonly<Partial<Record<EvidenceKind, number>>>;

export interface Calibration {
  bias: number;
  weights: Readonly<Record<EvidenceKind, number>>;
}

export function calibratedScore(scores: ViewScores, model: Calibration = TAG_CALIBRATION): number {
  let z = model.bias;
  for (const kind of EVIDENCE_KINDS) z += model.weights[kind] * (scores[kind] ?? 0);
  return 1 / (1 + Math.exp(-z));
}

/** Solves a·x = b for a small dense system (Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= m[r]![k]! * x[k]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}

/**
 * Logistic regression by Newton's method, with a small L2 penalty on the weights so a view
 * that always agrees with the labels on a few photos cannot push its weight to infinity.
 */
export function fitPlatt(samples: readonly { scores: ViewScores; right: boolean }[], l2 = 0.3): Calibration {
  const rows = samples.map((s) => [1, ...EVIDENCE_KINDS.map((k) => s.scores[k] ?? 0)]);
  const y = samples.map((s) => (s.right ? 1 : 0));
  const n = EVIDENCE_KINDS.length + 1;
  let w = new Array<number>(n).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    // The bias gets a token penalty only: it keeps the system solvable when every sample agrees.
    const penalty = (j: number) => (j ? l2 : 1e-6);
    const grad = w.map((wi, j) => penalty(j) * wi);
    const hess = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? penalty(i) : 0)));
    rows.forEach((x, r) => {
      const p = 1 / (1 + Math.exp(-x.reduce((s, v, j) => s + v * w[j]!, 0)));
      for (let i = 0; i < n; i++) {
        grad[i]! += (p - y[r]!) * x[i]!;
        for (let j = 0; j < n; j++) hess[i]![j]! += p * (1 - p) * x[i]! * x[j]!;
      }
    });
    const step = solve(hess, grad);
    w = w.map((wi, j) => wi - step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return { bias: round(w[0]!), weights: Object.fromEntries(EVIDENCE_KINDS.map((k, i) => [k, round(w[i + 1]!)])) as Record<EvidenceKind, number> };
}
