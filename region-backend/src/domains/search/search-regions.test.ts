import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shareInside } from './search-regions.js';

const box = fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }));

describe('a match inside a window', () => {
  it('is the share of the match box inside the window, in [0, 1], whole for the window itself', () => {
    fc.assert(
      fc.property(box, box, (a, b) => {
        const share = shareInside(a, b);
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
        // Whole for itself, to within rounding: the edges' sums round at 1e-16 of the picture, which is a
        // relative error of 1e-10 for a side of a millionth of the picture (a pixel of the largest picture).
        if (a[2] > 1e-6 && a[3] > 1e-6) expect(shareInside(a, a)).toBeCloseTo(1, 8);
      }),
    );
    expect(shareInside([0.6, 0.3, 0.2, 0.2], [0.5, 0.25, 0.5, 0.5])).toBeCloseTo(1);
    expect(shareInside([0.4, 0.3, 0.2, 0.2], [0.5, 0.25, 0.5, 0.5])).toBeCloseTo(0.5);
    expect(shareInside([0, 0, 0.2, 0.2], [0.5, 0.5, 0.5, 0.5])).toBe(0);
    // Tiny boxes whose edges round when summed (found by the property above) still share at most all of themselves.
    expect(shareInside([1.0395409765644874e-112, 0, 1.2940336916466697e-121, 3.435759382273533e-196], [0, 0, 1.0395409778585212e-112, 3.435759382273533e-196])).toBeLessThanOrEqual(1);
    // Hostile: an empty or missing box is inside nothing.
    expect(shareInside([0.5, 0.5, 0, 0], [0, 0, 1, 1])).toBe(0);
    expect(shareInside([], [0, 0, 1, 1])).toBe(0);
  });
});
