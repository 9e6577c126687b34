/**
 * Behaviour every store promises (the VectorStore interface), checked against a brute force written here:
 * the in-process stores (HNSW, usearch, exact) and the pgvector store on real pgvector databases (a native PostgreSQL 15
 * with pgvector, and PGlite's `vector` extension over the PostgreSQL wire protocol). In-memory stores answer synchronously, pgvector with
 * promises: the suite awaits every call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgvectorEngines, startPgVectorServer, type PgVectorEngine, type PgVectorServer } from '../../test/support/pgvector-server.js';
import { ExactVectorStore } from './exact-vector-store.js';
import { HnswVectorStore } from './hnsw-vector-store.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { UsearchVectorStore } from './usearch-vector-store.js';
import { seededRandom } from '../util/seeded-random.js';
import { matchesTags, parseTagFilter, type TagFilter } from './tag-filter.js';
import type { Awaitable, VectorItem, VectorStore } from './vector-store.js';

const D = 24;
const root = mkdtempSync(path.join(os.tmpdir(), 'iris-vectors-'));
let dirs = 0;
const engines = pgvectorEngines();
const servers = new Map<PgVectorEngine, PgVectorServer>();
const pools = new Map<PgVectorEngine, pg.Pool>();
beforeAll(async () => {
  for (const engine of engines) {
    const server = await startPgVectorServer({ engine });
    servers.set(engine, server);
    pools.set(engine, server.pool());
  }
}, 240_000);
afterAll(async () => {
  for (const server of servers.values()) await server.close();
  rmSync(root, { recursive: true, force: true });
});

type Factory = (dir?: string, version?: string) => VectorStore;
const memoryFactories: [string, Factory][] = [
  ['hnsw', (dir, version = 'v1') => new HnswVectorStore({ dimension: D, embeddingVersion: version, dir, params: { initialCapacity: 16 } })],
  ['exact', (dir, version = 'v1') => new ExactVectorStore({ dimension: D, embeddingVersion: version, dir })],
  ['usearch', (dir, version = 'v1') => new UsearchVectorStore({ dimension: D, embeddingVersion: version, dir })],
];
let keys = 0;
// For pgvector the "directory" names the index in the database: two stores made with one dir share it.
const factories: [string, Factory][] = [
  ...memoryFactories,
  ...engines.map((engine): [string, Factory] => [
    `pgvector (${engine})`,
    (dir, version = 'v1') => new PgVectorStore({ pool: pools.get(engine)!, key: dir ?? `anonymous-${keys++}`, dimension: D, embeddingVersion: version }),
  ]),
];

/** Calls a store method that may throw at once (in-memory stores) or reject (pgvector). */
async function settle<T>(call: () => Awaitable<T>): Promise<T> {
  return call();
}

function randomUnit(rand: () => number): Float32Array {
  const v = new Float32Array(D);
  let n = 0;
  for (let d = 0; d < D; d++) n += (v[d] = rand() - 0.5) ** 2;
  return v.map((x) => x / Math.sqrt(n));
}

function dataset(count: number, seed: number, firstId = 1): VectorItem[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    vector: randomUnit(rand),
    tags: [i % 2 ? 'odd' : 'even', ...(i % 25 === 0 ? ['rare'] : []), ...(i % 7 === 0 ? ['七'] : [])],
  }));
}

function bruteForce(items: Map<number, VectorItem>, query: Float32Array, k: number, filter?: TagFilter): number[] {
  return [...items.values()]
    .filter((item) => !filter || matchesTags(filter, item.tags))
    .map((item) => ({ id: item.id, cos: item.vector.reduce((s, x, d) => s + x * query[d]!, 0) }))
    .sort((a, b) => b.cos - a.cos)
    .slice(0, k)
    .map((h) => h.id);
}

describe.each(factories)('%s vector store', (_kind, make) => {
  it('finds the stored vector itself first, with a score of 1, and scores in [0, 1] best first', async () => {
    const store = make();
    const items = dataset(300, 1);
    await store.upsert(items);
    expect(store.size).toBe(300);
    for (const item of items.slice(0, 20)) {
      const hits = await store.search(item.vector, 10);
      expect(hits[0]!.id).toBe(item.id);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      for (const [i, hit] of hits.entries()) {
        expect(hit.score).toBeGreaterThanOrEqual(0);
        expect(hit.score).toBeLessThanOrEqual(1);
        if (i > 0) expect(hit.score).toBeLessThanOrEqual(hits[i - 1]!.score);
      }
    }
    const opposite = items[0]!.vector.map((x) => -x);
    const hits = await store.search(opposite, 300);
    expect(hits.at(-1)!.id).toBe(items[0]!.id);
    expect(hits.at(-1)!.score).toBeCloseTo(0, 5);
  });

  it('matches a brute force on unfiltered and filtered queries', async () => {
    const store = make();
    const items = dataset(500, 2);
    await store.upsert(items);
    const byId = new Map(items.map((i) => [i.id, i]));
    const rand = seededRandom(99);
    const filters = [undefined, parseTagFilter('odd')!, parseTagFilter('rare')!, parseTagFilter('{"or": ["rare", "七"]}')!];
    for (let q = 0; q < 20; q++) {
      const query = randomUnit(rand);
      for (const filter of filters) {
        const expected = bruteForce(byId, query, 10, filter);
        const got = (await store.search(query, 10, filter)).map((h) => h.id);
        expect(got, `query ${q} filter ${JSON.stringify(filter)}`).toEqual(expected);
      }
    }
  });

  it('returns fewer hits when fewer items match, and none for an unknown tag, k = 0 or an empty store', async () => {
    const store = make();
    expect(await store.search(randomUnit(seededRandom(1)), 5)).toEqual([]);
    await store.upsert(dataset(100, 3));
    const rare = await store.search(randomUnit(seededRandom(2)), 50, parseTagFilter('rare'));
    expect(rare.map((h) => h.id).sort((a, b) => a - b)).toEqual([1, 26, 51, 76]);
    expect(await store.search(randomUnit(seededRandom(2)), 10, parseTagFilter('nope'))).toEqual([]);
    expect(await store.search(randomUnit(seededRandom(2)), 0)).toEqual([]);
    expect(await store.search(randomUnit(seededRandom(2)), 1000)).toHaveLength(100);
  });

  it('grows far beyond its initial capacity', async () => {
    const store = make();
    const items = dataset(2000, 4);
    for (let i = 0; i < items.length; i += 37) await store.upsert(items.slice(i, i + 37));
    expect(store.size).toBe(2000);
    expect((await store.search(items[1999]!.vector, 1))[0]!.id).toBe(2000);
    expect((await store.search(items[0]!.vector, 1))[0]!.id).toBe(1);
  });

  it('never returns removed ids, on any search path', async () => {
    const store = make();
    const items = dataset(400, 5);
    await store.upsert(items);
    const removed = items.filter((i) => i.id % 3 === 0).map((i) => i.id);
    await store.remove([...removed, 99_999]);
    expect(store.size).toBe(400 - removed.length);
    expect(await store.has(3)).toBe(false);
    expect(await store.has(1)).toBe(true);
    const gone = new Set(removed);
    for (const item of items.filter((i) => gone.has(i.id)).slice(0, 30)) {
      for (const filter of [undefined, parseTagFilter('odd')!, parseTagFilter('rare')!]) {
        for (const hit of await store.search(item.vector, 20, filter)) expect(gone.has(hit.id)).toBe(false);
      }
    }
    await store.upsert(dataset(removed.length, 6, 10_000));
    expect(store.size).toBe(400);
    expect(store.stats().deleted).toBe(0);
  });

  it('replaces the vector and the tags of an id that is upserted again', async () => {
    const store = make();
    const items = dataset(200, 7);
    await store.upsert(items);
    const moved = { id: 5, vector: items[150]!.vector.map((x) => -x), tags: ['moved'] };
    await store.upsert([moved]);
    expect(store.size).toBe(200);
    expect((await store.search(items[4]!.vector, 5)).map((h) => h.id)).not.toContain(5);
    expect((await store.search(moved.vector, 1))[0]).toEqual({ id: 5, score: expect.closeTo(1, 5) as unknown as number });
    expect((await store.search(moved.vector, 5, parseTagFilter('moved'))).map((h) => h.id)).toEqual([5]);
    expect((await store.search(moved.vector, 200, parseTagFilter('even'))).map((h) => h.id)).not.toContain(5);
    // Within one batch the later duplicate wins.
    const [first, second] = [randomUnit(seededRandom(70)), randomUnit(seededRandom(71))];
    await store.upsert([
      { id: 6, vector: first, tags: ['first'] },
      { id: 6, vector: second, tags: ['second'] },
    ]);
    expect((await store.search(second, 1))[0]).toEqual({ id: 6, score: expect.closeTo(1, 5) as unknown as number });
    expect(await store.search(first, 5, parseTagFilter('first'))).toEqual([]);
  });

  it('validates its input', async () => {
    const store = make();
    const v = randomUnit(seededRandom(1));
    await expect(settle(() => store.upsert([{ id: 1, vector: new Float32Array(D + 1), tags: [] }]))).rejects.toThrow(/dimensions/);
    await expect(settle(() => store.upsert([{ id: 1, vector: new Float32Array(D), tags: [] }]))).rejects.toThrow(/non-zero/);
    await expect(settle(() => store.upsert([{ id: -1, vector: v, tags: [] }]))).rejects.toThrow(/non-negative integer/);
    await expect(settle(() => store.upsert([{ id: 1.5, vector: v, tags: [] }]))).rejects.toThrow(/non-negative integer/);
    await expect(settle(() => store.upsert([{ id: 1, vector: v.map(() => NaN), tags: [] }]))).rejects.toThrow(/finite/);
    await expect(settle(() => store.search(new Float32Array(3), 1))).rejects.toThrow(/dimensions/);
    await expect(settle(() => store.search(v, -1))).rejects.toThrow(/k must be/);
    expect(store.size).toBe(0);
    // Vectors that are not unit length are normalised, not refused.
    await store.upsert([{ id: 1, vector: v.map((x) => x * 3), tags: [] }]);
    expect((await store.search(v, 1))[0]!.score).toBeCloseTo(1, 5);
  });

  it('tracks a monotonic change sequence', async () => {
    const store = make();
    await store.upsert(dataset(3, 8));
    expect(store.meta.changeSeq).toBe(1);
    await store.upsert(dataset(3, 9), 41);
    await store.remove([1], 40);
    expect(store.meta.changeSeq).toBe(41);
    await store.remove([2]);
    expect(store.meta).toEqual({ embeddingVersion: 'v1', dimension: D, changeSeq: 42 });
    await expect(settle(() => store.upsert([], -2))).rejects.toThrow(/seq/);
  });

  it('saves and loads: the same results in a new instance, with metadata', async () => {
    const dir = path.join(root, `store-${dirs++}`);
    const store = make(dir);
    const items = dataset(600, 10);
    await store.upsert(items, 7);
    await store.remove([2, 4, 6], 8);
    await store.save();
    const copy = make(dir);
    const result = await copy.load();
    expect(result).toEqual({ status: 'loaded', meta: { embeddingVersion: 'v1', dimension: D, changeSeq: 8 }, size: 597 });
    const rand = seededRandom(11);
    for (let q = 0; q < 15; q++) {
      const query = randomUnit(rand);
      for (const filter of [undefined, parseTagFilter('odd')!, parseTagFilter('{"or": ["rare", "七"]}')!]) {
        expect(await copy.search(query, 10, filter)).toEqual(await store.search(query, 10, filter));
      }
    }
    expect(copy.stats()).toEqual(store.stats());
    // The loaded store keeps working: changes, and a second save over the first.
    await copy.upsert([{ id: 2, vector: items[1]!.vector, tags: ['back'] }], 9);
    await copy.save();
    const third = make(dir);
    expect((await third.load()).status).toBe('loaded');
    expect((await third.search(items[1]!.vector, 5, parseTagFilter('back'))).map((h) => h.id)).toEqual([2]);
    expect(third.meta.changeSeq).toBe(9);
  });

  it('reports a missing or incompatible save and stays empty for a rebuild', async () => {
    const dir = path.join(root, `store-${dirs++}`);
    const fresh = make(dir);
    expect(await fresh.load()).toEqual({ status: 'missing' });
    const store = make(dir);
    await store.upsert(dataset(50, 12));
    await store.save();
    const other = make(dir, 'v2');
    const result = await other.load();
    expect(result.status).toBe('incompatible');
    expect(result).toMatchObject({ reason: expect.stringContaining('embedding version') });
    expect(other.size).toBe(0);
  });

  it('rebuilds from an async source, yielding batches and single items', async () => {
    const store = make();
    await store.upsert(dataset(10, 13, 5000));
    const items = dataset(300, 14);
    async function* source(): AsyncGenerator<VectorItem | VectorItem[]> {
      yield items.slice(0, 100);
      for (const item of items.slice(100, 150)) yield item;
      await new Promise((r) => setTimeout(r, 1));
      yield items.slice(150);
    }
    await store.rebuild(source(), 77);
    expect(store.size).toBe(300);
    expect(await store.has(5000)).toBe(false);
    expect(store.meta.changeSeq).toBe(77);
    expect((await store.search(items[120]!.vector, 1))[0]!.id).toBe(items[120]!.id);
  });

  it('refuses use after close', async () => {
    const store = make();
    await store.upsert(dataset(5, 16));
    await store.close();
    await expect(settle(() => store.search(randomUnit(seededRandom(1)), 1))).rejects.toThrow(/closed/);
    await expect(settle(() => store.upsert(dataset(1, 17)))).rejects.toThrow(/closed/);
  });
});

// What only stores in process memory do: reuse the room of removed items, and save a snapshot to a file.
describe.each(memoryFactories)('%s vector store in process memory', (_kind, make) => {
  it('reuses the slots of removed ids', () => {
    const store = make();
    store.upsert(dataset(400, 5));
    store.remove(dataset(400, 5).filter((i) => i.id % 3 === 0).map((i) => i.id));
    const slotsBefore = store.stats().slots;
    store.upsert(dataset(133, 6, 10_000));
    expect(store.stats().slots).toBe(slotsBefore);
    expect(store.stats().deleted).toBe(0);
    expect(store.size).toBe(400);
  });

  it('applies changes made during a save after it, and the file holds the state at its start', async () => {
    const dir = path.join(root, `store-${dirs++}`);
    const store = make(dir);
    const items = dataset(200, 15);
    await store.upsert(items.slice(0, 100), 1);
    const saving = store.save();
    store.upsert(items.slice(100), 2);
    store.remove([1], 3);
    await saving;
    expect(store.size).toBe(199);
    expect(store.meta.changeSeq).toBe(3);
    const copy = make(dir);
    await copy.load();
    expect(copy.size).toBe(100);
    expect(copy.meta.changeSeq).toBe(1);
    expect(copy.has(1)).toBe(true);
  });
});
