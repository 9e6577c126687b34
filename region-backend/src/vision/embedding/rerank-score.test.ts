import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Verification } from './geometric-verify.js';
import { RERANK, rerankScore, wantsMirrorPass } from './rerank-score.js';

const verification = (inliers: number): Verification => ({ inliers, queryBox: [0, 0, 1, 1], candidateBox: [0, 0, 1, 1] });

describe('re-ranking scores', () => {
  it('tries the mirror image only when nothing verified and the best vector score says "the same picture"', () => {
    expect(wantsMirrorPass([null, null], RERANK.mirrorMinScore)).toBe(true);
    expect(wantsMirrorPass([null, null], RERANK.mirrorMinScore - 0.01)).toBe(false);
    expect(wantsMirrorPass([null, verification(20)], 0.99)).toBe(false);
    expect(wantsMirrorPass([], 0.95)).toBe(true);
  });

  it('raises a verified candidate to the verified floor and never lowers a score', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(1000), (cosine, inliers) => {
        expect(rerankScore(cosine, null)).toBe(cosine);
        const verified = rerankScore(cosine, verification(inliers));
        expect(verified).toBeGreaterThanOrEqual(Math.max(cosine, RERANK.verifiedFloor));
        expect(verified).toBeLessThanOrEqual(1);
        expect(rerankScore(cosine, verification(inliers + 1))).toBeGreaterThanOrEqual(verified);
      }),
    );
  });
});
