/**
 * Embeddings written a batch per statement (index-items.repo.ts): first passes inserted together, second
 * passes completed together, on a real PostgreSQL; the bytes come back exactly as written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeEmbeddings, insertEmbeddings } from '../../src/domains/search-services/index-items.repo.js';
import { testDatabasePool } from '../support/test-database.js';

interface Row {
  blob_key: string;
  vector: Buffer;
  features: Buffer | null;
  view_sum: Buffer | null;
}

describe('embeddings written a batch per statement', () => {
  const pool = testDatabasePool();
  const rows = async (pipeline: string) =>
    new Map(
      (await pool().query<Row>('SELECT blob_key, vector, features, view_sum FROM image_embeddings WHERE pipeline = $1', [pipeline])).rows.map((r) => [r.blob_key, r]),
    );

  it('inserts first passes and complete embeddings together, leaving one stored first as it is, then completes the first passes', async () => {
    const p = 'p1';
    await insertEmbeddings(pool(), p, [{ blobKey: 'kept', vector: Buffer.from([9]), features: null, viewSum: Buffer.from([9, 9]) }]);
    await insertEmbeddings(pool(), p, [
      { blobKey: 'a', vector: Buffer.from([1, 2]), features: null, viewSum: Buffer.from([3, 4]) },
      { blobKey: 'b', vector: Buffer.from([5]), features: new Uint8Array([6, 7]), viewSum: Buffer.from([8]) },
      { blobKey: 'kept', vector: Buffer.from([0]), features: null, viewSum: null },
    ]);
    let stored = await rows(p);
    expect(stored.get('a')).toMatchObject({ vector: Buffer.from([1, 2]), features: null, view_sum: Buffer.from([3, 4]) });
    // A complete embedding keeps no view sum.
    expect(stored.get('b')).toMatchObject({ vector: Buffer.from([5]), features: Buffer.from([6, 7]), view_sum: null });
    expect(stored.get('kept')).toMatchObject({ vector: Buffer.from([9]), view_sum: Buffer.from([9, 9]) });

    await completeEmbeddings(pool(), p, [
      { blobKey: 'a', vector: Buffer.from([10]), features: new Uint8Array([11]) },
      // A null vector keeps the first pass's.
      { blobKey: 'kept', vector: null, features: new Uint8Array(0) },
      // Already complete: left as it is.
      { blobKey: 'b', vector: Buffer.from([0]), features: new Uint8Array([0]) },
    ]);
    stored = await rows(p);
    expect(stored.get('a')).toMatchObject({ vector: Buffer.from([10]), features: Buffer.from([11]), view_sum: null });
    expect(stored.get('kept')).toMatchObject({ vector: Buffer.from([9]), features: Buffer.alloc(0), view_sum: null });
    expect(stored.get('b')).toMatchObject({ vector: Buffer.from([5]), features: Buffer.from([6, 7]) });
    await insertEmbeddings(pool(), p, []);
    await completeEmbeddings(pool(), p, []);
  });

  it('property: any bytes round-trip exactly through a batch insert and a batch completion', async () => {
    const bytes = fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ vector: bytes, viewSum: bytes, second: bytes, features: bytes }), { minLength: 1, maxLength: 8 }), async (batch) => {
        const p = `prop${run++}`;
        await insertEmbeddings(pool(), p, batch.map((b, i) => ({ blobKey: `k${i}`, vector: b.vector, features: null, viewSum: b.viewSum })));
        let stored = await rows(p);
        batch.forEach((b, i) => expect(stored.get(`k${i}`)).toMatchObject({ vector: b.vector, view_sum: b.viewSum, features: null }));
        await completeEmbeddings(pool(), p, batch.map((b, i) => ({ blobKey: `k${i}`, vector: b.second, features: b.features })));
        stored = await rows(p);
        batch.forEach((b, i) => expect(stored.get(`k${i}`)).toMatchObject({ vector: b.second, features: b.features, view_sum: null }));
      }),
      { numRuns: 25 },
    );
  });
});
