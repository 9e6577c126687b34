import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExactVectorStore } from './exact-vector-store.js';
import { HnswVectorStore } from './hnsw-vector-store.js';
import { SyntheticVectors } from '../../test/support/synthetic-vectors.js';
import { parseTagFilter } from './tag-filter.js';
import type { VectorItem } from './vector-store.js';

const D = 64;
const N = 4000;
const gen = new SyntheticVectors({ count: N, dimension: D, seed: 3 });
const items: VectorItem[] = Array.from({ length: N }, (_, i) => ({ id: 10_000 + i, vector: gen.vector(i), tags: gen.tags(i) }));
const queries = Array.from({ length: 40 }, (_, q) => gen.query((q * 97) % N, q));
const root = mkdtempSync(path.join(os.tmpdir(), 'iris-hnsw-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let hnsw: HnswVectorStore;
let exact: ExactVectorStore;
beforeAll(() => {
  hnsw = new HnswVectorStore({ dimension: D, embeddingVersion: 'syn', params: { efConstruction: 64 } });
  exact = new ExactVectorStore({ dimension: D, embeddingVersion: 'syn' });
  for (let i = 0; i < N; i += 500) {
    hnsw.upsert(items.slice(i, i + 500));
    exact.upsert(items.slice(i, i + 500));
  }
});

function recall(filterText?: string, options = {}): number {
  const filter = parseTagFilter(filterText);
  let found = 0;
  let wanted = 0;
  for (const q of queries) {
    const truth = new Set(exact.search(q, 10, filter).map((h) => h.id));
    wanted += truth.size;
    found += hnsw.search(q, 10, filter, options).filter((h) => truth.has(h.id)).length;
  }
  return found / wanted;
}

describe('HnswVectorStore', () => {
  it('reaches high recall@10 on clustered data against the exact store', () => {
    expect(recall()).toBeGreaterThanOrEqual(0.97);
    // A tiny candidate list is measurably worse: the recall figure is not vacuous.
    expect(recall(undefined, { ef: 10 })).toBeLessThan(recall(undefined, { ef: 200 }));
  });

  it('scans exactly when a filter matches few items, and keeps recall on both search paths', () => {
    const rare = hnsw.explain(parseTagFilter('sel1')!, 10);
    expect(rare.strategy).toBe('scan');
    expect(rare.matches).toBe(items.filter((i) => i.tags.includes('sel1')).length);
    expect(rare.selectivity).toBeLessThan(0.02);
    expect(rare.graphMicros).toBeGreaterThan(rare.scanMicros);
    expect(recall('sel1')).toBe(1);
    expect(recall('sel20')).toBeGreaterThanOrEqual(0.97);
    expect(recall('sel20', { strategy: 'graph' })).toBeGreaterThanOrEqual(0.95);
    expect(recall('{"and": ["sel20", {"or": ["天猫", "京东"]}]}', { strategy: 'graph' })).toBeGreaterThanOrEqual(0.95);
  });

  it('returns every matching item when k exceeds the number of matches', () => {
    const filter = parseTagFilter('sel20')!;
    const matches = hnsw.explain(filter, 10).matches;
    const hits = hnsw.search(queries[0]!, matches, filter);
    expect(hits).toHaveLength(matches);
    expect(new Set(hits.map((h) => h.id)).size).toBe(matches);
  });

  it('answers a forced graph walk and a forced scan with the same best hit for a near-duplicate query', () => {
    const filter = parseTagFilter('sel20')!;
    const target = items.find((i) => i.tags.includes('sel20'))!;
    for (const strategy of ['graph', 'scan'] as const) {
      const [best] = hnsw.search(target.vector, 5, filter, { strategy });
      expect(best!.id).toBe(target.id);
      expect(best!.score).toBeCloseTo(1, 4);
    }
    // Scores of the int8 scan without rescoring are approximate but close.
    const approx = hnsw.search(target.vector, 5, filter, { strategy: 'scan', rescore: 0 });
    const exactHits = exact.search(target.vector, 5, filter);
    approx.forEach((hit, i) => expect(Math.abs(hit.score - exactHits[i]!.score)).toBeLessThan(2e-3));
  });

  it('reuses freed slots and compacts a store that mostly lost its items', async () => {
    const store = new HnswVectorStore({ dimension: D, embeddingVersion: 'syn', params: { efConstruction: 32, initialCapacity: 8 } });
    store.upsert(items.slice(0, 1000));
    store.remove(items.slice(0, 800).map((i) => i.id));
    store.upsert(items.slice(1000, 1300));
    expect(store.stats()).toMatchObject({ size: 500, slots: 1000, deleted: 500 });
    const before = store.search(queries[0]!, 10);
    const compacting = store.compact();
    // Meanwhile searches use the old graph and changes wait for the new one.
    expect(store.search(queries[0]!, 10)).toEqual(before);
    store.upsert([items[1500]!], 99);
    expect(store.has(items[1500]!.id)).toBe(false);
    await compacting;
    expect(store.stats()).toMatchObject({ size: 501, slots: 501, deleted: 0 });
    expect(store.has(items[1500]!.id)).toBe(true);
    expect(store.meta.changeSeq).toBe(99);
    for (const item of [items[800]!, items[999]!, items[1299]!]) expect(store.search(item.vector, 1)[0]!.id).toBe(item.id);
    expect(store.search(items[10]!.vector, 500).map((h) => h.id)).not.toContain(items[10]!.id);
    const sel20 = parseTagFilter('sel20')!;
    const live = items.slice(800, 1300).filter((i) => i.tags.includes('sel20')).length;
    expect(store.search(items[900]!.vector, 1000, sel20)).toHaveLength(live + (items[1500]!.tags.includes('sel20') ? 1 : 0));
  });
});

describe('HnswVectorStore persistence', () => {
  const dim = 16;
  const small = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, vector: new SyntheticVectors({ count: 300, dimension: dim }).vector(i), tags: [`t${i % 3}`] }));

  async function saved(name: string): Promise<string> {
    const dir = path.join(root, name);
    const store = new HnswVectorStore({ dimension: dim, embeddingVersion: 'v', dir });
    store.upsert(small, 5);
    await store.save();
    return dir;
  }

  function fileOf(dir: string, prefix: string): string {
    return path.join(dir, readdirSync(dir).find((f) => f.startsWith(prefix))!);
  }

  async function load(dir: string, dimension = dim) {
    const store = new HnswVectorStore({ dimension, embeddingVersion: 'v', dir });
    return { result: await store.load(), store };
  }

  it('detects a flipped byte in the graph file', async () => {
    const dir = await saved('flip');
    const file = fileOf(dir, 'index-');
    const bytes = readFileSync(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(file, bytes);
    const { result, store } = await load(dir);
    expect(result).toEqual({ status: 'corrupt', reason: expect.stringMatching(/checksum/) as unknown as string });
    expect(store.size).toBe(0);
    store.upsert(small.slice(0, 3));
    expect(store.search(small[0]!.vector, 1)[0]!.id).toBe(1);
  });

  it('detects a truncated sidecar, a missing data file and an unreadable manifest', async () => {
    const truncated = await saved('truncated');
    truncateSync(fileOf(truncated, 'sidecar-'), 100);
    expect((await load(truncated)).result).toMatchObject({ status: 'corrupt', reason: expect.stringMatching(/bytes, manifest says/) });

    const missing = await saved('missing');
    rmSync(fileOf(missing, 'index-'));
    expect((await load(missing)).result).toMatchObject({ status: 'corrupt', reason: expect.stringMatching(/missing/) });

    const garbled = await saved('garbled');
    writeFileSync(path.join(garbled, 'manifest.json'), '{"format": "iris-vector-store", "files": ');
    expect((await load(garbled)).result).toMatchObject({ status: 'corrupt', reason: expect.stringMatching(/manifest unreadable/) });
  });

  it('reports a save of another dimension as incompatible', async () => {
    const dir = await saved('dimension');
    expect((await load(dir, dim * 2)).result).toMatchObject({ status: 'incompatible', reason: expect.stringMatching(/dimension 16, expected 32/) });
  });

  it('ignores the debris of an interrupted save and keeps the last complete one', async () => {
    const dir = await saved('interrupted');
    // A crash after writing the next generation's files but before the manifest was replaced.
    writeFileSync(path.join(dir, 'index-99999999999999.hnsw'), 'partial');
    writeFileSync(path.join(dir, 'sidecar-99999999999999.bin.tmp'), 'partial');
    writeFileSync(path.join(dir, 'manifest.json.tmp'), '{');
    const { result, store } = await load(dir);
    expect(result).toMatchObject({ status: 'loaded', size: 300, meta: { changeSeq: 5 } });
    await store.save();
    expect(readdirSync(dir).sort()).toEqual(
      [path.basename(fileOf(dir, 'index-')), 'manifest.json', path.basename(fileOf(dir, 'sidecar-'))].sort(),
    );
  });
});
