/**
 * The change feed under concurrent work: a poller that only remembers the last change_seq it saw ends with
 * exactly the database's state, while downloads, bulk adds, attribute updates and deletes run at once.
 * Also the set status moving through the specification's states during a bulk download.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastChangeSeq, listRecordChanges, type RecordChange } from '../../src/domains/data-sets/record-feed.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload, waitFor } from './helpers.js';
import { startImageServer, type ImageServer } from './image-server.js';

const BASE = '/image_sets/_0000014';

describe('record change feed', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer({ delayMs: 25 });
    backend = await startTestBackend({ IRIS_DOWNLOAD_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const getSet = async (id: string) => (await backend.call({ method: 'GET', url: `${BASE}/${id}` })).json();
  const upload = (id: string, field: string, lines: string[]) => {
    const file = fileUpload(field, lines.join('\n'));
    return backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: file.payload, headers: file.headers });
  };

  it('moves not-downloaded → downloading → downloaded with consistent counts', async () => {
    const id = await createImageSet(backend);
    expect((await upload(id, 'urls_to_add', Array.from({ length: 120 }, (_, i) => images.url(1000 + i)))).statusCode).toBe(200);
    const seen: { status: string; n_downloaded: number; n_items: number }[] = [];
    await waitFor(
      async () => {
        const set = await getSet(id);
        seen.push(set);
        return set;
      },
      (s) => s.status === 'downloaded',
      60_000,
    );
    const order = ['not-downloaded', 'downloading', 'downloaded'];
    const statuses = seen.map((s) => s.status).filter((s, i, all) => i === 0 || all[i - 1] !== s);
    expect(statuses).toContain('downloading');
    expect(statuses.map((s) => order.indexOf(s))).toEqual([...statuses.map((s) => order.indexOf(s))].sort());
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.n_downloaded).toBeGreaterThanOrEqual(seen[i - 1]!.n_downloaded);
    for (const s of seen) {
      expect(s.n_items).toBe(120);
      expect(s.status === 'downloading').toBe(s.n_downloaded > 0 && s.n_downloaded < 120);
    }
  });

  it('a poller that keeps only the last seq ends with the exact state, under concurrent changes', async () => {
    const id = await createImageSet(backend);
    const pool = backend.app.db.pool;
    const state = new Map<number, RecordChange>();
    let after = 0;
    let stop = false;
    const poll = async () => {
      for (;;) {
        const page = await listRecordChanges(pool, id, after, 37);
        for (const change of page) {
          expect(change.change_seq).toBeGreaterThan(after);
          state.set(change.id, change);
          after = change.change_seq;
        }
        if (page.length < 37) return;
      }
    };
    const poller = (async () => {
      while (!stop) {
        await poll();
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    const urls = Array.from({ length: 150 }, (_, i) => images.url(2000 + i, (['jpg', 'png'] as const)[i % 2]));
    await upload(id, 'urls_to_add', urls.slice(0, 100).map((u, i) => `${u},first ${i},a`));
    await Promise.all([
      upload(id, 'urls_to_add', urls.slice(50).map((u, i) => `${u},second ${i},b`)),
      upload(id, 'urls_to_delete', urls.slice(0, 20)),
      ...urls.slice(20, 30).map((u) => backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { image_url: u, meta: 'one by one', tags: 'c' } })),
    ]);
    await waitFor(
      () => getSet(id),
      (s) => s.status === 'downloaded',
      60_000,
    );
    stop = true;
    await poller;
    await poll();

    const rows = await pool.query<{ id: number; change_seq: number; status: string; meta: string; deleted: boolean }>(
      'SELECT id, change_seq, status, meta, deleted_at IS NOT NULL AS deleted FROM data_set_records WHERE set_id = $1',
      [id],
    );
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(state.size).toBe(rows.rows.length);
    for (const row of rows.rows) {
      const seenByPoller = state.get(row.id);
      expect(seenByPoller, `record ${row.id}`).toMatchObject({ change_seq: row.change_seq, status: row.status, meta: row.meta, deleted: row.deleted });
    }
    const live = rows.rows.filter((r) => !r.deleted);
    expect(live).toHaveLength(130);
    expect(await lastChangeSeq(pool, id)).toBe(after);
    expect((await getSet(id)).n_items).toBe(130);
  });
});
