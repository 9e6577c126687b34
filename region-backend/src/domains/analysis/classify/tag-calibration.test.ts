import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibratedScore, fitPlatt } from './tag-calibration.js';
import { TAG_CALIBRATION } from './tag-calibration.table.js';

/** A deterministic pseudo-random sequence (mulberry32), so the synthetic labels are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('object tag calibration', () => {
  it('recovers the parameters of labels drawn from a known logistic model', () => {
    const truth = { bias: -3, weights: { object: 2, 'object-framed': 5 } };
    const rand = random(7);
    const samples = Array.from({ length: 6000 }, () => {
      const scores = { object: rand() < 0.7 ? rand() : 0, 'object-framed': rand() < 0.7 ? rand() : 0 };
      return { scores, right: rand() < calibratedScore(scores, truth) };
    });
    const fitted = fitPlatt(samples, 0);
    expect(fitted.bias).toBeCloseTo(truth.bias, 0);
    expect(fitted.weights.object).toBeCloseTo(truth.weights.object, 0);
    expect(fitted.weights['object-framed']).toBeCloseTo(truth.weights['object-framed'], 0);
  });

  it('fits finite parameters on any labelled sample, even empty or unanimous, and answers probabilities in 0..1', () => {
    const score = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined });
    const sample = fc.record({ scores: fc.record({ object: score, 'object-framed': score }), right: fc.boolean() });
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (samples, a, b) => {
        const fitted = fitPlatt(samples.map((s) => ({ right: s.right, scores: Object.fromEntries(Object.entries(s.scores).filter(([, v]) => v !== undefined)) })));
        for (const v of [fitted.bias, ...Object.values(fitted.weights)]) expect(Number.isFinite(v)).toBe(true);
        const p = calibratedScore({ object: a, 'object-framed': b }, fitted);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });

  it('the shipped table: a stronger detection in either view never lowers the probability', () => {
    for (const weight of Object.values(TAG_CALIBRATION.weights)) expect(weight).toBeGreaterThan(0);
    expect(calibratedScore({})).toBeLessThan(0.2);
    expect(calibratedScore({ object: 0.9, 'object-framed': 0.9 })).toBeGreaterThan(0.9);
  });
});
