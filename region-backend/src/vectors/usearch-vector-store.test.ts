/**
 * What the usearch store adds to the VectorStore contract (vector-store.contract.test.ts): recall of the int8
 * graph with float re-scoring against the exact store, both filtered search paths, its float vectors kept
 * outside the directory's saved files, and saves that survive the process being killed at any moment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyntheticVectors } from '../../test/support/synthetic-vectors.js';
import { itemsAfter, SAVE_SCRIPT_DIMENSION } from '../../test/support/usearch-rounds.js';
import { ExactVectorStore } from './exact-vector-store.js';
import { parseTagFilter } from './tag-filter.js';
import { UsearchVectorStore } from './usearch-vector-store.js';
import type { VectorItem } from './vector-store.js';

const SCRIPT = fileURLToPath(new URL('../../test/support/usearch-save-script.ts', import.meta.url));
const D = 64;
const N = 4000;
const gen = new SyntheticVectors({ count: N, dimension: D, seed: 5 });
const items: VectorItem[] = Array.from({ length: N }, (_, i) => ({ id: 20_000 + i, vector: gen.vector(i), tags: gen.tags(i) }));
const queries = Array.from({ length: 40 }, (_, q) => gen.query((q * 89) % N, q));
const root = mkdtempSync(path.join(os.tmpdir(), 'iris-usearch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let store: UsearchVectorStore;
let exact: ExactVectorStore;
beforeAll(() => {
  store = new UsearchVectorStore({ dimension: D, embeddingVersion: 'syn', dir: path.join(root, 'main'), params: { efConstruction: 64 } });
  exact = new ExactVectorStore({ dimension: D, embeddingVersion: 'syn' });
  for (let i = 0; i < N; i += 500) {
    store.upsert(items.slice(i, i + 500));
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
    found += store.search(q, 10, filter, options).filter((h) => truth.has(h.id)).length;
  }
  return found / wanted;
}

describe('UsearchVectorStore', () => {
  it('reaches high recall@10 with float re-scoring, and scores are exact cosines', () => {
    expect(recall()).toBeGreaterThanOrEqual(0.97);
    // Without re-scoring candidates the int8 graph alone is measurably worse: the figure is not vacuous.
    expect(recall(undefined, { rescore: 0, ef: 10 })).toBeLessThan(recall());
    const q = queries[0]!;
    const exactHits = exact.search(q, 5);
    const hits = store.search(q, 5);
    expect(hits[0]!.id).toBe(exactHits[0]!.id);
    expect(hits[0]!.score).toBeCloseTo(exactHits[0]!.score, 6);
  });

  it('keeps recall on both filtered paths: the over-fetched graph walk and the exact scan', () => {
    // Tags on 1% and 20% of the items independently of content, and one that follows the clusters (a query
    // far from its items: the over-fetched candidates hold too few of them, and the scan takes over).
    for (const filterText of ['sel1', 'sel20', 'cat3']) {
      expect(recall(filterText, { strategy: 'scan' })).toBe(1);
      expect(recall(filterText)).toBeGreaterThanOrEqual(0.95);
    }
    expect(recall('sel20', { strategy: 'graph' })).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps no float vectors in its directory between saves, and reads them back from the save', async () => {
    await store.save();
    const names = readdirSync(path.join(root, 'main')).sort();
    expect(names).toHaveLength(3);
    expect(names.filter((n) => n.startsWith('.vectors-'))).toEqual([]);
    const copy = new UsearchVectorStore({ dimension: D, embeddingVersion: 'syn', dir: path.join(root, 'main') });
    expect(await copy.load()).toMatchObject({ status: 'loaded', size: N });
    for (const q of queries.slice(0, 5)) expect(copy.search(q, 10)).toEqual(store.search(q, 10));
    expect(copy.stats()).toMatchObject({ kind: 'usearch', size: N });
    // Far below the float32 vectors alone (4 bytes per dimension): they are not in process memory.
    expect(copy.stats().estimatedBytes / N).toBeLessThan(D * 4 + 260);
    await copy.close();
  });

  it('reports a flipped byte in the graph file as corrupt and answers from a rebuild', async () => {
    const dir = path.join(root, 'flip');
    const first = new UsearchVectorStore({ dimension: D, embeddingVersion: 'syn', dir });
    first.upsert(items.slice(0, 300), 4);
    await first.save();
    await first.close();
    const file = path.join(dir, readdirSync(dir).find((f) => f.startsWith('index-'))!);
    const bytes = readFileSync(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(file, bytes);
    const second = new UsearchVectorStore({ dimension: D, embeddingVersion: 'syn', dir });
    expect(await second.load()).toMatchObject({ status: 'corrupt', reason: expect.stringMatching(/checksum/) });
    expect(second.size).toBe(0);
    async function* source() {
      yield items.slice(0, 300);
    }
    await second.rebuild(source(), 4);
    expect(second.search(items[7]!.vector, 1)[0]!.id).toBe(items[7]!.id);
    await second.close();
  });

  it('loads the last complete save after the saving process is killed at any moment', async () => {
    const dir = path.join(root, 'killed');
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Killed as soon as its third save is complete: it is then changing its store or writing the next save.
    let saved = 0;
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the saving process exited with code ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        saved = Number(line.split(' ')[1]);
        if (saved >= 3) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await exited;

    const reopened = new UsearchVectorStore({ dimension: SAVE_SCRIPT_DIMENSION, embeddingVersion: 'crash', dir });
    const result = await reopened.load();
    expect(result.status).toBe('loaded');
    const round = reopened.meta.changeSeq;
    expect(round).toBeGreaterThanOrEqual(saved);
    const expected = itemsAfter(round);
    expect(reopened.size).toBe(expected.size);
    // Every item holds its vector of that round (score 1 against itself); the removed ids are gone.
    for (const item of [...expected.values()].filter((_, i) => i % 37 === 0)) {
      const [hit] = reopened.search(item.vector, 1);
      expect(hit).toEqual({ id: item.id, score: expect.closeTo(1, 5) as unknown as number });
    }
    const highestId = Math.max(...expected.keys());
    for (let id = 1; id <= highestId + 3000; id++) if (!expected.has(id)) expect(reopened.has(id)).toBe(false);
    await reopened.close();
  }, 120_000);
});
