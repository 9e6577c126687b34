/**
 * Switching a region from the hnsw store to the usearch store (IRIS_VECTOR_STORE=usearch): each service's index
 * saved by hnsw answers from its file while the usearch index is rebuilt beside it from the stored embeddings,
 * then the usearch index takes over and its save replaces the hnsw file; the next process loads it as it is.
 * Real backend processes, real PostgreSQL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childSearchFixture } from './child-search-fixture.js';
import { waitFor } from './search-fixtures.js';

const N = 10;

/** The kind of store that saved the service's index file, or null while there is none. */
function savedKind(dataDir: string, serviceId: string): string | null {
  const walk = (dir: string): string | null => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name === serviceId && path.basename(dir) === 'indexes') {
        try {
          return (JSON.parse(readFileSync(path.join(full, 'manifest.json'), 'utf8')) as { kind: string }).kind;
        } catch {
          return null;
        }
      }
      const found = walk(full);
      if (found) return found;
    }
    return null;
  };
  return walk(dataDir);
}

describe('switching the vector store from hnsw to usearch', () => {
  const fixture = childSearchFixture();
  const { urlOf, child, search, service: view, createIndexedSet } = fixture;

  it('answers from the hnsw file while the usearch index is rebuilt, then serves and loads the usearch one', async () => {
    const first = await child({ IRIS_VECTOR_STORE: 'hnsw' });
    const { serviceId } = await createIndexedSet(first, N);
    await waitFor(() => view(first, serviceId), (s) => s.n_indexed === N, 180_000);
    expect((await search(first, serviceId, 3)).results[0]!.url).toBe(urlOf(3));
    await first.kill('SIGTERM');
    expect(savedKind(fixture.env.dataDir, serviceId)).toBe('hnsw');

    const second = await child({ IRIS_VECTOR_STORE: 'usearch' });
    // The first query is answered at once, from the index the hnsw store saved; the usearch one is built meanwhile.
    expect((await search(second, serviceId, 5)).results[0]!.url).toBe(urlOf(5));
    await waitFor(async () => savedKind(fixture.env.dataDir, serviceId), (kind) => kind === 'usearch', 120_000);
    const after = await search(second, serviceId, 7);
    expect(after.results[0]!.url).toBe(urlOf(7));
    expect(after.results[0]!.score).toBeGreaterThan(0.9);
    await second.kill('SIGKILL');

    // The usearch file is what a new process loads; hnsw files are gone from the directory.
    const third = await child({ IRIS_VECTOR_STORE: 'usearch' });
    expect((await search(third, serviceId, 2)).results[0]!.url).toBe(urlOf(2));
    expect(savedKind(fixture.env.dataDir, serviceId)).toBe('usearch');
    await third.kill('SIGTERM');
  }, 600_000);
});
