/** The vision classify services end to end through a real inference pool, real models and real photos. */
import type { RgbImage } from '../../../images/rgb-image.js';
import { ApiError, PORN_LABELS, SCENE_LABELS, TAGGING_LABELS, type Lang } from '@iris/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import type { AnalysisHandler } from '../analysis-registry.js';
import { faceRow, sampleTile } from '../../../../test/support/sample-images.js';
import { pornHandler } from './porn.handler.js';
import { sceneHandler } from './scene.handler.js';
import { namesSubject, taggingHandler } from './tagging.handler.js';

const pool = new InferencePool(1);
afterAll(() => pool.close());

interface Item { category: string; puid: string; score: number }

async function results(handler: AnalysisHandler<'classify' | 'tagging'>, rgb: RgbImage, params: Record<string, string> = {}, lang: Lang = 'en'): Promise<Item[]> {
  handler.validate?.(params);
  const out = await handler.run({ pool }, { rgb, encoded: new Uint8Array(), params, lang });
  const items = out.results as Item[];
  // General tagging answers the things in the picture first, then the words that describe it: each group by score.
  const group = (item: Item) => (handler === taggingHandler && namesSubject(item.puid.replace('.', ':')) ? 0 : 1);
  for (let i = 1; i < items.length; i++) {
    expect(group(items[i]!)).toBeGreaterThanOrEqual(group(items[i - 1]!));
    if (group(items[i]!) === group(items[i - 1]!)) expect(items[i]!.score).toBeLessThanOrEqual(items[i - 1]!.score);
  }
  return items;
}

describe('vision classify services', () => {
  it('_0000024 answers Non-porn and Porn, scores summing to 1, for ordinary portraits mostly Non-porn', async () => {
    const items = await results(pornHandler, await faceRow(), {}, 'zh');
    expect(items.map((i) => i.puid).sort()).toEqual(PORN_LABELS.map((l) => l.puid).sort());
    expect(items[0]!.category).toBe('非色情');
    expect(items[0]!.score).toBeGreaterThan(0.7);
    expect(items[0]!.score + items[1]!.score).toBeCloseTo(1, 6);
  });

  it('_0000039 sees a man at a restaurant table as an indoor dining scene', async () => {
    const items = await results(sceneHandler, await sampleTile(2));
    const ids = items.map((i) => i.puid);
    expect(ids).toContain('scene.dining');
    expect(ids).toContain('scene.indoor');
    expect(ids).not.toContain('scene.outdoor');
    const known = new Set(SCENE_LABELS.map((l) => l.puid));
    expect(ids.every((id) => known.has(id))).toBe(true);
  });

  it('_0000159 answers at most count distinct tags, the person among the first three', async () => {
    const tile = await sampleTile(2);
    const three = await results(taggingHandler, tile, { count: '3' });
    expect(three).toHaveLength(3);
    expect(three.map((t) => t.category)).toContain('person');
    const all = await results(taggingHandler, tile);
    expect(all.length).toBeGreaterThan(3);
    expect(all.length).toBeLessThanOrEqual(20);
    expect(new Set(all.map((t) => t.category)).size).toBe(all.length);
    const puids = new Set([...TAGGING_LABELS.values()].map((l) => l.puid));
    expect(all.every((t) => puids.has(t.puid))).toBe(true);
    expect(all.map((t) => t.puid)).toContain('coco.cup');
  });

  it('_0000159 rejects a count that is not a positive integer', () => {
    for (const count of ['0', '-1', 'abc', '2.5']) {
      const err = (() => {
        try {
          taggingHandler.validate!({ count });
        } catch (e) {
          return e;
        }
      })();
      expect(err, count).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
    }
    expect(() => taggingHandler.validate!({ count: '7' })).not.toThrow();
    expect(() => taggingHandler.validate!({})).not.toThrow();
  });
});
