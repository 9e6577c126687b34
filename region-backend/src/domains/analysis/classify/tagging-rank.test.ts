import { describe, expect, it } from 'vitest';
import { rankTags } from './tagging.handler.js';

describe('general tagging order', () => {
  it('answers the things in the picture before the words that describe it, each group highest score first', () => {
    const ranked = rankTags(
      [
        { key: 'color:white', score: 0.85 },
        { key: 'scene:outdoor', score: 0.8 },
        { key: 'coco:bird', score: 0.42 },
        { key: 'tag:colorful', score: 0.6 },
        { key: 'coco:bird', score: 0.3 },
        { key: 'tag:face', score: 0.9 },
        { key: 'coco:cup', score: 0.15 },
        { key: 'coco:bowl', score: 0.2 },
        { key: 'scene:indoor', score: 0.2 },
      ],
      10,
      'en',
    );
    expect(ranked.map((t) => t.puid)).toEqual(['tag.face', 'coco.bird', 'coco.bowl', 'color.white', 'scene.outdoor', 'tag.colorful']);
    // A repeated tag keeps its best score; a score under the floor (0.2 for an object's calibrated score, 0.25
    // for the other words) is never answered.
    expect(ranked[1]!.score).toBe(0.42);
    expect(rankTags([{ key: 'color:white', score: 0.85 }, { key: 'coco:bird', score: 0.42 }], 1, 'en').map((t) => t.puid)).toEqual(['coco.bird']);
  });
});
