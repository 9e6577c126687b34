import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { listDownloadedRecords } from '../../src/domains/data-sets/record-feed.js';
import { registerSetUsageCheck } from '../../src/domains/data-sets/set-usage.js';
import { clearToken } from '../../src/domains/training-sets/training-set.service.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { fileUpload, waitFor } from './helpers.js';
import { startImageServer, type ImageServer } from './image-server.js';

const BASE = '/custom_training/_0000194/training_sets';

describe('training sets', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer();
    backend = await startTestBackend({ IRIS_DOWNLOAD_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const create = async (name = 'training', description = 'labels') => {
    const id = newResourceId();
    const res = await backend.call({ method: 'POST', url: BASE, resourceId: id, payload: { name, description } });
    expect(res.statusCode).toBe(200);
    return id;
  };
  const get = (id: string) => backend.call({ method: 'GET', url: `${BASE}/${id}` });
  const addData = (id: string, csv: string) => {
    const upload = fileUpload('urls_to_add', csv);
    return backend.call({ method: 'POST', url: `${BASE}/${id}/images`, payload: upload.payload, headers: upload.headers });
  };

  it('creates (JSON or form; name and description required), lists, gets, modifies (both required)', async () => {
    const id = newResourceId();
    const res = await backend.call({ method: 'POST', url: BASE, resourceId: id, payload: 'name=cats%20and%20dogs&description=pets', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.json()).toMatchObject({ id, name: 'cats and dogs', description: 'pets', n_items: 0, n_downloaded: 0, n_failed: 0, status: 'not-downloaded', creator_id: 1 });
    expect(JSON.parse(res.headers['x-iris-registry'] as string)).toEqual({ live: [id] });
    for (const payload of [{ name: 'x' }, { description: 'y' }, { name: '', description: 'y' }]) {
      const bad = await backend.call({ method: 'POST', url: BASE, resourceId: newResourceId(), payload });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error_code: 5004 });
    }
    const list = (await backend.call({ method: 'GET', url: BASE })).json();
    expect(list.results.map((r: { id: string }) => r.id)).toContain(id);
    expect(list.results[0].request_id).toBeUndefined();
    expect((await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload: { name: 'n2', description: 'd2' } })).json()).toMatchObject({ name: 'n2', description: 'd2' });
    const half = await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload: { name: 'only' } });
    expect(half.json()).toMatchObject({ error_code: 5004 });
    expect((await get(newResourceId())).json()).toMatchObject({ error_code: 2001 });
  });

  it('adds url,label rows, downloads them, refuses commas and bad rows without changing anything', async () => {
    const id = await create();
    const rows = Array.from({ length: 12 }, (_, i) => `${images.url(500 + i)},${i % 2 ? 'cat' : '狗'}`);
    const res = await addData(id, rows.join('\n'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ n_items: 12 });
    const done = await waitFor(
      async () => (await get(id)).json(),
      (s) => s.status === 'downloaded',
    );
    expect(done).toMatchObject({ n_items: 12, n_downloaded: 12, n_failed: 0 });
    const records = await listDownloadedRecords(backend.app.db.pool, id);
    expect(new Set(records.map((r) => r.label))).toEqual(new Set(['cat', '狗']));

    for (const [csv, line] of [
      [`${images.url(1)},cat\n${images.url(2)},"big, cat"`, /line 2/],
      [`${images.url(1)},cat,extra`, /line 1/],
      [`${images.url(1)}`, /line 1/],
      [`${images.url(1)},cat\nnot-a-url,cat`, /line 2/],
      [`url,label\n${images.url(1)},cat`, /line 1/],
    ] as const) {
      const bad = await addData(id, csv);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error_code: 5001 });
      expect(bad.json().message).toMatch(line);
    }
    expect((await get(id)).json()).toMatchObject({ n_items: 12 });
    const noFile = await backend.call({ method: 'POST', url: `${BASE}/${id}/images`, payload: {} });
    expect(noFile.json()).toMatchObject({ error_code: 5001 });
  });

  it('deletes data by the first column (label and further columns ignored), refuses bad URLs, and refuses while in use', async () => {
    const id = await create();
    await addData(id, [1, 2, 3, 4, 5].map((n) => `${images.url(600 + n)},l${n}`).join('\n'));
    const del = (csv: string) => {
      const upload = multipart({ urls_to_delete: { filename: 'd.csv', content: csv } });
      return backend.call({ method: 'DELETE', url: `${BASE}/${id}/images`, payload: upload.payload, headers: upload.headers });
    };
    expect((await del(`${images.url(601)}\n${images.url(602)},l2`)).json()).toMatchObject({ n_items: 3 });
    const three = await del(`${images.url(605)},l5,extra`);
    expect(three.statusCode).toBe(200);
    expect(three.json()).toMatchObject({ n_items: 2 });
    const badUrl = await del(`${images.url(603)}\nnot-a-url,l3`);
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json()).toMatchObject({ error_code: 5001 });
    expect(badUrl.json().message).toMatch(/line 2/);
    const inUse = registerSetUsageCheck(async (setId) => setId === id);
    try {
      const refused = await del(`${images.url(603)}`);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error_code: 3001 });
      const refusedDelete = await backend.call({ method: 'DELETE', url: `${BASE}/${id}` });
      expect(refusedDelete.json()).toMatchObject({ error_code: 3001 });
    } finally {
      inUse();
    }
    expect((await get(id)).json()).toMatchObject({ n_items: 2 });
  });

  it('clears only when name, id and token match (401/1004, 400/5001), and deletes with 200', async () => {
    const id = await create('clear me', 'x');
    await addData(id, `${images.url(700)},a\n${images.url(701)},b`);
    const clear = (payload: object | string, headers?: Record<string, string>) => backend.call({ method: 'DELETE', url: `${BASE}/${id}/clear`, payload, ...(headers ? { headers } : {}) });
    const wrongName = await clear({ name: 'other', training_set_id: id, token: clearToken('other') });
    expect(wrongName.statusCode).toBe(401);
    expect(wrongName.json()).toMatchObject({ error_code: 1004 });
    const wrongId = await clear({ name: 'clear me', training_set_id: newResourceId(), token: clearToken('clear me') });
    expect(wrongId.statusCode).toBe(400);
    expect(wrongId.json()).toMatchObject({ error_code: 5001 });
    const wrongToken = await clear({ name: 'clear me', training_set_id: id, token: 'bad' });
    expect(wrongToken.json()).toMatchObject({ error_code: 5001 });
    const inUse = registerSetUsageCheck(async (setId) => setId === id);
    try {
      expect((await clear({ name: 'clear me', training_set_id: id, token: clearToken('clear me') })).json()).toMatchObject({ error_code: 3001 });
    } finally {
      inUse();
    }
    expect((await get(id)).json()).toMatchObject({ n_items: 2 });
    const form = `name=clear%20me&training_set_id=${id}&token=${encodeURIComponent(clearToken('clear me'))}`;
    const cleared = await clear(form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ id, n_items: 0, n_downloaded: 0, status: 'not-downloaded' });

    const deleted = await backend.call({ method: 'DELETE', url: `${BASE}/${id}` });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ request_id: expect.any(String) });
    expect(JSON.parse(deleted.headers['x-iris-registry'] as string)).toEqual({ deleted: [id] });
    expect((await get(id)).statusCode).toBe(404);
  });
});
