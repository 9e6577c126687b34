import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createVectorStore, openVectorStore } from './open-vector-store.js';
import { SyntheticVectors } from '../../test/support/synthetic-vectors.js';
import type { VectorItem } from './vector-store.js';

const D = 16;
const gen = new SyntheticVectors({ count: 200, dimension: D });
const rows: VectorItem[] = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, vector: gen.vector(i), tags: gen.tags(i) }));
const root = mkdtempSync(path.join(os.tmpdir(), 'iris-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function source(items: VectorItem[], reads: { count: number }) {
  return async function* (): AsyncGenerator<VectorItem[]> {
    reads.count++;
    for (let i = 0; i < items.length; i += 50) yield items.slice(i, i + 50);
  };
}

describe('openVectorStore', () => {
  for (const kind of ['hnsw', 'exact'] as const) {
    it(`${kind}: rebuilds when missing, loads when current, rebuilds when stale or corrupt`, async () => {
      const dir = path.join(root, kind);
      const reads = { count: 0 };
      const open = (changeSeq: number, items = rows) =>
        openVectorStore(createVectorStore({ kind, dimension: D, embeddingVersion: 'e1', dir }), { changeSeq, source: source(items, reads) });

      expect(await open(10)).toEqual({ action: 'rebuilt', size: 200, because: { status: 'missing' } });
      expect(await open(10)).toEqual({ action: 'loaded', size: 200 });
      expect(reads.count).toBe(1);

      // PostgreSQL moved on (seq 11) while the file still says 10.
      const stale = await open(11, rows.slice(0, 150));
      expect(stale).toEqual({ action: 'rebuilt', size: 150, because: { status: 'stale', savedSeq: 10, currentSeq: 11 } });
      expect(await open(11)).toEqual({ action: 'loaded', size: 150 });

      writeFileSync(path.join(dir, 'manifest.json'), 'not json');
      const corrupt = await open(11);
      expect(corrupt).toMatchObject({ action: 'rebuilt', size: 200, because: { status: 'corrupt' } });
      expect(reads.count).toBe(3);
    });
  }

  it('rebuilds a memory-only store without trying to load or save', async () => {
    const store = createVectorStore({ dimension: D, embeddingVersion: 'e1' });
    expect(store.kind).toBe('hnsw');
    const reads = { count: 0 };
    expect(await openVectorStore(store, { changeSeq: 3, source: source(rows, reads) })).toEqual({
      action: 'rebuilt',
      size: 200,
      because: { status: 'missing' },
    });
    expect(store.meta.changeSeq).toBe(3);
  });
});
