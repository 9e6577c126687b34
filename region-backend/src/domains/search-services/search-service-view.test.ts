import { describe, expect, it } from 'vitest';
import { BUILTIN_EMBEDDER } from '../../vision/embedding/embedder-identity.js';
import { EMBEDDING_DIM, EMBEDDING_VERSION } from '../../vision/embedding/embedding-info.js';
import { bytesToVector, pipelineOf, vectorToBytes } from './embedding-pipeline.js';
import { indexedRatio, searchServiceObject } from './search-service-view.js';
import type { SearchServiceRow } from './search-service.repo.js';

const row = (over: Partial<SearchServiceRow> = {}): SearchServiceRow => ({
  id: 'svc1',
  account_id: 7,
  kind: 'image_set',
  scenario: 'general',
  set_id: 'set1',
  product_set_id: null,
  pipeline: 'p',
  next_pipeline: null,
  n_rebuilt: 0,
  source_seq: 0,
  index_seq: 0,
  purged_seq: 0,
  n_indexed: 0,
  caught_up_at: null,
  name: 'n',
  created_at: new Date('2024-01-02T03:04:05.678Z'),
  updated_at: null,
  indexed_at: null,
  n_downloaded: 0,
  n_first_pass_only: 0,
  ...over,
});

describe('search service object', () => {
  it('has the specification fields; type and product_set_id only for product-set services', () => {
    const now = new Date('2024-01-02T03:05:06Z');
    expect(searchServiceObject(row(), 'req', now)).toEqual({
      id: 'svc1',
      name: 'n',
      scenario: 'general',
      image_set_id: 'set1',
      created_at: '2024-01-02T03:04:05Z',
      creator_id: 7,
      indexed_ratio: 0,
      n_indexed: 0,
      n_first_pass_only: 0,
      last_indexed_time: null,
      last_updated_at: null,
      status: 'running',
      status_duration: 60,
      request_id: 'req',
    });
    const product = searchServiceObject(row({ kind: 'product_set', product_set_id: 'ps1', n_indexed: 3, n_downloaded: 4, indexed_at: now, updated_at: now }));
    expect(product).toMatchObject({ type: 1, product_set_id: 'ps1', indexed_ratio: 0.75, last_indexed_time: '2024-01-02T03:05:06Z', last_updated_at: '2024-01-02T03:05:06Z' });
    expect('request_id' in product).toBe(false);
  });

  it('indexed ratio stays in [0, 1]', () => {
    expect(indexedRatio(0, 0)).toBe(0);
    expect(indexedRatio(5, 0)).toBe(0);
    expect(indexedRatio(1, 3)).toBe(0.3333);
    expect(indexedRatio(4, 3)).toBe(1);
  });
});

describe('indexed_ratio during a rebuild under another embedder', () => {
  it('counts the items embedded with the new embedder, while n_indexed keeps the online index', () => {
    const o = searchServiceObject(row({ n_indexed: 40, n_downloaded: 40, next_pipeline: 'q', n_rebuilt: 10 }));
    expect(o.indexed_ratio).toBe(0.25);
    expect(o.n_indexed).toBe(40);
    expect(searchServiceObject(row({ n_indexed: 40, n_downloaded: 40, n_rebuilt: 10 })).indexed_ratio).toBe(1);
  });
});

describe('embedding pipeline', () => {
  it('names the model version and the scenario views; scenarios with the same views share it', () => {
    expect(pipelineOf('general').startsWith(`${BUILTIN_EMBEDDER.id}/`)).toBe(true);
    expect(BUILTIN_EMBEDDER.id.startsWith(EMBEDDING_VERSION)).toBe(true);
    expect(pipelineOf('fashion')).toBe(pipelineOf('fashion_v3'));
    expect(pipelineOf('fashion')).not.toBe(pipelineOf('general'));
    expect(pipelineOf('material')).not.toBe(pipelineOf('fashion'));
  });

  it('stores vectors as float32 little-endian bytes, exactly', () => {
    const v = Float32Array.from({ length: EMBEDDING_DIM }, (_, i) => Math.sin(i) / 7);
    const bytes = vectorToBytes(v);
    expect(bytes.length).toBe(EMBEDDING_DIM * 4);
    expect(bytes.readFloatLE(4)).toBe(v[1]);
    expect(Array.from(bytesToVector(bytes))).toEqual(Array.from(v));
    expect(() => vectorToBytes(new Float32Array(3))).toThrow(RangeError);
    expect(() => bytesToVector(new Uint8Array(12))).toThrow(RangeError);
  });
});
