import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rerankPictures } from '../../../test/support/real-photos.js';
import { embed } from './embedder.js';
import { embedTurns, QUERY_TURNS, turnRgb, wantsTurns } from './query-turns.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe('quarter turns of a query', () => {
  it('turns any picture by quarter turns: four quarters or two halves give it back, a quarter swaps its sides', async () => {
    const picture = fc.record({ width: fc.integer({ min: 1, max: 9 }), height: fc.integer({ min: 1, max: 9 }), seed: fc.integer({ min: 0, max: 250 }) });
    await fc.assert(
      fc.asyncProperty(picture, async ({ width, height, seed }) => {
        const rgb = { data: Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 7 + seed) % 256), width, height };
        const quarter = await turnRgb(rgb, 90);
        expect([quarter.width, quarter.height]).toEqual([height, width]);
        const back = await turnRgb(await turnRgb(quarter, 180), 90);
        expect([...back.data]).toEqual([...rgb.data]);
        expect([...(await turnRgb(await turnRgb(rgb, 180), 180)).data]).toEqual([...rgb.data]);
        expect([...(await turnRgb(quarter, 270)).data]).toEqual([...rgb.data]);
      }),
      { numRuns: 25 },
    );
  });

  it('tries the turns only from the "same picture" score on', () => {
    expect(wantsTurns(QUERY_TURNS.minScore)).toBe(true);
    expect(wantsTurns(QUERY_TURNS.minScore - 0.01)).toBe(false);
    // Hostile scores never call for them.
    expect(wantsTurns(Number.NaN)).toBe(false);
    expect(wantsTurns(-Infinity)).toBe(false);
    expect(QUERY_TURNS.bar).toBeGreaterThan(QUERY_TURNS.minScore);
  });

  it('embeds the query turned back by each quarter: the turn that undoes the query\'s is the upright picture\'s vector', async () => {
    const { source } = await rerankPictures();
    const upright = (await embed({ rgb: source })).vector;
    const query = await turnRgb(source, 90);
    const asIs = (await embed({ rgb: query })).vector;
    const vectors = await embedTurns(query, 'general');
    expect(vectors).toHaveLength(QUERY_TURNS.angles.length);
    const turnedBack = vectors[QUERY_TURNS.angles.indexOf(270)]!;
    expect((1 + cosine(turnedBack, upright)) / 2).toBeGreaterThan(QUERY_TURNS.bar);
    expect(cosine(turnedBack, upright)).toBeGreaterThan(cosine(asIs, upright));
  });
});
