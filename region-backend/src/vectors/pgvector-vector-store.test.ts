/**
 * What the pgvector store adds to the shared contract (vector-store.contract.test.ts): one copy shared by
 * several clients, stale changes from a lagging process skipped, HNSW index scans that keep going until a
 * selective filter fills k, filters compiled to SQL that agree with the in-process evaluation on any
 * expression, halfvec storage, and dropping an index. Runs on a native PostgreSQL 15 with pgvector and on PGlite
 * over the wire protocol (pgvector-server.ts).
 */
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgvectorEngines, startPgVectorServer, type PgVectorServer } from '../../test/support/pgvector-server.js';
import { hasKeywords, inPriceRange, keywordWords, productAttributes, productFilter } from '../domains/search/product-filter.js';
import { ExactVectorStore } from './exact-vector-store.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { SyntheticVectors } from '../../test/support/synthetic-vectors.js';
import { matchesTags, type TagFilter } from './tag-filter.js';
import type { ProductAttributes, VectorItem } from './vector-store.js';

const D = 32;
let server: PgVectorServer;
let pool: pg.Pool;
let otherPool: pg.Pool;

const N = 2000;
const gen = new SyntheticVectors({ count: N, dimension: D, seed: 5 });
const items: VectorItem[] = Array.from({ length: N }, (_, i) => ({ id: i + 1, vector: gen.vector(i), tags: gen.tags(i) }));
const make = (key: string, db = pool, type: 'vector' | 'halfvec' = 'vector') => new PgVectorStore({ pool: db, key, dimension: D, embeddingVersion: 'v1', type });

async function filled(key: string, type: 'vector' | 'halfvec' = 'vector', count = N): Promise<PgVectorStore> {
  const store = make(key, pool, type);
  for (let i = 0; i < count; i += 1000) await store.upsert(items.slice(i, Math.min(count, i + 1000)), Math.min(count, i + 1000));
  return store;
}

describe.each(pgvectorEngines())('PgVectorStore on %s', (engine) => {
  beforeAll(async () => {
    server = await startPgVectorServer({ engine });
    pool = server.pool();
    otherPool = server.pool();
  }, 120_000);
  afterAll(async () => server?.close());

  let store: PgVectorStore;
  const exact = new ExactVectorStore({ dimension: D, embeddingVersion: 'v1' });
  beforeAll(async () => {
    store = await filled('main');
    exact.upsert(items);
  }, 120_000);

  it('searches through the partition HNSW index and fills k under a 1% filter by iterative scanning', async () => {
    const plan = await pool.query(`EXPLAIN SELECT id FROM ${store.partition} ORDER BY embedding <=> $1::vector LIMIT 10`, [`[${items[0]!.vector.join(',')}]`]);
    expect(plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using .*embedding.*idx/);
    const rare = { kind: 'tag', tag: 'sel1' } as const;
    const matching = items.filter((i) => i.tags.includes('sel1')).length;
    expect(matching).toBeGreaterThan(10);
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const query = gen.query((q * 131) % items.length, q);
      const hits = await store.search(query, 10, rare);
      expect(hits).toHaveLength(10);
      const truth = new Set(exact.search(query, 10, rare).map((h) => h.id));
      found += hits.filter((h) => truth.has(h.id)).length;
      for (const hit of hits) expect(items[hit.id - 1]!.tags).toContain('sel1');
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.9);
  });

  it('agrees with the in-process tag evaluation on any filter expression, whatever the tag text', async () => {
    const vocabulary = ['sel1', 'sel20', '天猫', '京东', "o'brien", 'a,b', '"q"', 'x\\y', 'absent'];
    const leaf = fc.constantFrom(...vocabulary).map((tag): TagFilter => ({ kind: 'tag', tag }));
    const { expr } = fc.letrec<{ expr: TagFilter }>((tie) => ({
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), of: fc.array(tie('expr'), { minLength: 1, maxLength: 3 }) }),
      ),
    }));
    const small = make('filters');
    const tagged = items.slice(0, 300).map((item, i) => ({ ...item, tags: [...item.tags, vocabulary[i % vocabulary.length]!, vocabulary[(i * 7) % 9]!] }));
    await small.upsert(tagged);
    const query = gen.query(0, 0);
    await fc.assert(
      fc.asyncProperty(expr, async (filter) => {
        const got = (await small.search(query, 300, filter)).map((h) => h.id).sort((a, b) => a - b);
        const expected = tagged.filter((i) => matchesTags(filter, i.tags)).map((i) => i.id);
        expect(got).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('filters on price and keywords in SQL like the product filter does', async () => {
    const shop = make('products');
    const product = (price: number | null, keywords: string): ProductAttributes => ({ price, words: keywords.toLowerCase().split(/\s+/), text: keywords.toLowerCase() });
    await shop.upsert([
      { ...items[0]!, product: product(10, 'red shoe') },
      { ...items[1]!, product: product(20, 'blue shoe') },
      { ...items[2]!, product: product(null, 'red hat') },
      { ...items[3]!, product: product(30, '红色连衣裙') },
    ]);
    const ids = async (minPrice: number | null, maxPrice: number | null, keywords: { word: string; substring: boolean }[]) =>
      (await shop.search(items[0]!.vector, 10, null, { product: { minPrice, maxPrice, keywords } })).map((h) => h.id).sort();
    expect(await ids(10, 20, [])).toEqual([2]);
    expect(await ids(null, 25, [{ word: 'shoe', substring: false }])).toEqual([1, 2]);
    expect(await ids(null, null, [{ word: 'red', substring: false }])).toEqual([1, 3]);
    expect(await ids(null, null, [{ word: 'sho', substring: false }])).toEqual([]);
    expect(await ids(null, null, [{ word: '连衣裙', substring: true }])).toEqual([4]);
    expect(await ids(0, null, [])).toEqual([1, 2, 4]);
  });

  it('agrees with the product filter on records on any price text, keywords and bounds', async () => {
    const prices = ['10', '$1,200', '', 'abc', '5.5', '-3', '1e3', '20'];
    const texts = ['Red Shoe', 'blue shoe, leather', '红色连衣裙 夏季', 'red/hat', '', 'SHOE'];
    const shop = make('product-property');
    const records = items.slice(0, 48).map((item, i) => ({ item, price: prices[i % prices.length]!, keywords: texts[(i * 5) % texts.length]! }));
    await shop.upsert(records.map((r) => ({ ...r.item, product: productAttributes(r.price, r.keywords) })));
    const bound = fc.option(fc.constantFrom(-5, 0, 5.5, 10, 20, 1000, 1200), { nil: null });
    const words = fc.uniqueArray(fc.constantFrom('red', 'shoe', '连衣裙', '红色', 'leather', 'hat', 'sho'), { maxLength: 2 });
    await fc.assert(
      fc.asyncProperty(words, bound, bound, async (query, min, max) => {
        const wanted = keywordWords(query.join(' '));
        const got = (await shop.search(items[0]!.vector, 48, null, { product: productFilter(wanted, min, max) })).map((h) => h.id).sort((a, b) => a - b);
        const expected = records.filter((r) => hasKeywords(r.keywords, wanted) && inPriceRange(r.price, min, max)).map((r) => r.item.id);
        expect(got).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('is one copy for every client: a change through one is seen by another at once', async () => {
    const other = make('main', otherPool);
    expect(await other.load()).toEqual({ status: 'loaded', meta: { embeddingVersion: 'v1', dimension: D, changeSeq: N }, size: N });
    const fresh = { id: 99_001, vector: gen.query(5, 77), tags: ['fresh'] };
    await store.upsert([fresh], N + 1);
    expect((await other.search(fresh.vector, 1))[0]).toEqual({ id: 99_001, score: expect.closeTo(1, 5) as unknown as number });
    await other.refresh();
    expect(other.meta.changeSeq).toBe(N + 1);
    expect(other.size).toBe(N + 1);
    await other.remove([99_001], N + 2);
    expect(await store.has(99_001)).toBe(false);
    // A process that read the change feed before the removal sends its older batch late: it is skipped.
    await store.upsert([fresh], N + 1);
    expect(await store.has(99_001)).toBe(false);
    expect(store.meta.changeSeq).toBe(N + 2);
    expect(store.size).toBe(N);
  });

  it('stores halfvec vectors in half the bytes with nearly the same ranking', async () => {
    const half = await filled('half', 'halfvec');
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const query = gen.query((q * 37) % items.length, q);
      const truth = exact.search(query, 10);
      const hits = await half.search(query, 10);
      found += hits.filter((h) => truth.some((t) => t.id === h.id)).length;
      expect(Math.abs(hits[0]!.score - truth[0]!.score)).toBeLessThan(2e-3);
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.9);
    const bytes = async (table: string) => Number((await pool.query(`SELECT sum(pg_column_size(embedding)) AS b FROM ${table}`)).rows[0].b);
    expect(await bytes(half.partition!)).toBeLessThan(0.55 * (await bytes(store.partition!)));
  });

  it('drops its partition and row when destroyed', async () => {
    const doomed = await filled('doomed', 'vector', 200);
    const partition = doomed.partition!;
    expect(await doomed.databaseBytes()).toBeGreaterThan(200 * D * 4);
    await doomed.destroy();
    expect((await pool.query('SELECT to_regclass($1) AS t', [partition])).rows[0].t).toBeNull();
    expect(await make('doomed').load()).toEqual({ status: 'missing' });
  });
});
