import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RgbImage } from '../../images/rgb-image.js';
import { MAX_BATCH, sizeGroups } from './backbone.js';

const view = (width: number, height: number): RgbImage => ({ width, height, data: new Uint8Array(0) });

describe('backbone calls: views grouped by size', () => {
  it('a task of 8 fashion pictures (whole view and mirror image of one size, a centre view of another) makes calls of at most 8 views', () => {
    const views = Array.from({ length: 8 }, () => [view(288, 224), view(288, 224), view(224, 224)]).flat();
    const groups = sizeGroups(views);
    expect(groups.map((g) => g.length)).toEqual([8, 8, 8]);
  });

  it('property: every view in exactly one call, calls of one size and at most MAX_BATCH views', () => {
    const sizes = fc.constantFrom([288, 224], [224, 224], [224, 299], [112, 224]);
    fc.assert(
      fc.property(fc.array(sizes, { maxLength: 60 }), (list) => {
        const views = list.map(([w, h]) => view(w!, h!));
        const groups = sizeGroups(views);
        expect(groups.flat().sort((a, b) => a - b)).toEqual(views.map((_, i) => i));
        for (const g of groups) {
          expect(g.length).toBeGreaterThan(0);
          expect(g.length).toBeLessThanOrEqual(MAX_BATCH);
          expect(new Set(g.map((i) => `${views[i]!.width}x${views[i]!.height}`)).size).toBe(1);
        }
      }),
    );
  });
});
