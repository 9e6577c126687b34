import { describe, expect, it } from 'vitest';
import { fitHomography, ransacHomography } from './homography-ransac.js';

// A perspective map: rotation, scale, translation and a little keystone.
const TRUE_H = [0.9, -0.25, 40, 0.3, 1.1, -15, 0.0004, -0.0002, 1];

function project(h: ArrayLike<number>, x: number, y: number): [number, number] {
  const w = h[6]! * x + h[7]! * y + h[8]!;
  return [(h[0]! * x + h[1]! * y + h[2]!) / w, (h[3]! * x + h[4]! * y + h[5]!) / w];
}

function correspondences(inliers: number, outliers: number): { src: Float64Array; dst: Float64Array } {
  let seed = 11;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const src = new Float64Array((inliers + outliers) * 2);
  const dst = new Float64Array((inliers + outliers) * 2);
  for (let i = 0; i < inliers + outliers; i++) {
    const x = random() * 400;
    const y = random() * 300;
    const [u, v] = i < inliers ? project(TRUE_H, x, y) : [random() * 600, random() * 500];
    src.set([x, y], 2 * i);
    // Inliers carry up to half a pixel of noise.
    dst.set(i < inliers ? [u + (random() - 0.5), v + (random() - 0.5)] : [u, v], 2 * i);
  }
  return { src, dst };
}

describe('RANSAC homography', () => {
  it('solves four exact correspondences exactly', () => {
    const src = Float64Array.from([0, 0, 100, 0, 100, 80, 0, 80]);
    const dst = new Float64Array(8);
    for (let i = 0; i < 4; i++) dst.set(project(TRUE_H, src[2 * i]!, src[2 * i + 1]!), 2 * i);
    const h = fitHomography(src, dst, [0, 1, 2, 3])!;
    for (let k = 0; k < 9; k++) expect(h[k]).toBeCloseTo(TRUE_H[k]!, 6);
  });

  it('recovers the map and marks exactly the inliers among 60 % outliers', () => {
    const { src, dst } = correspondences(40, 60);
    const fit = ransacHomography(src, dst, { threshold: 3, maxIterations: 2000, confidence: 0.995, seed: 1 })!;
    expect(fit).not.toBeNull();
    expect(fit.inliers).toBe(40);
    expect(Array.from(fit.inlierMask.subarray(0, 40)).every((m) => m === 1)).toBe(true);
    expect(Array.from(fit.inlierMask.subarray(40)).filter((m) => m === 1).length).toBe(0);
    for (const [x, y] of [[0, 0], [400, 300], [200, 150]] as const) {
      const [u, v] = project(fit.h, x, y);
      const [eu, ev] = project(TRUE_H, x, y);
      expect(Math.hypot(u - eu, v - ev)).toBeLessThan(1.5);
    }
  });

  it('gives the same answer for the same seed, and none for too few points', () => {
    const { src, dst } = correspondences(20, 20);
    const a = ransacHomography(src, dst, { threshold: 3, maxIterations: 500, confidence: 0.99, seed: 5 })!;
    const b = ransacHomography(src, dst, { threshold: 3, maxIterations: 500, confidence: 0.99, seed: 5 })!;
    expect(Array.from(a.h)).toEqual(Array.from(b.h));
    expect(ransacHomography(src.subarray(0, 6), dst.subarray(0, 6), { threshold: 3, maxIterations: 10, confidence: 0.99 })).toBeNull();
  });
});
