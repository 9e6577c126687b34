import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { listRecordChanges } from '../../src/domains/data-sets/record-feed.js';
import { registerSetUsageCheck } from '../../src/domains/data-sets/set-usage.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload, tarGz, TIME_FORMAT, waitFor } from './helpers.js';
import { startImageServer, type ImageServer } from './image-server.js';

const BASE = '/image_sets/_0000014';

describe('image sets', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    process.env.IRIS_DOWNLOAD_RETRY_SECONDS = '0.2';
    process.env.IRIS_DOWNLOAD_MAX_ATTEMPTS = '3';
    process.env.IRIS_FETCH_TIMEOUT_MS = '1500';
    images = await startImageServer({ slowMs: 4000 });
    backend = await startTestBackend({ IRIS_DOWNLOAD_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const get = (id: string, accountId = 1) => backend.call({ method: 'GET', url: `${BASE}/${id}`, accountId });
  const settled = (id: string) =>
    waitFor(
      async () => (await get(id)).json(),
      (s) => s.status === 'downloaded',
    );

  it('creates from JSON, form and multipart bodies, truncating names and descriptions by Unicode characters', async () => {
    const id = newResourceId();
    const name = '😀😀😀😀😀😀😀😀😀😀 图像集合名字太长了'; // 10 emoji + space + 7 CJK = 18 characters
    const description = '描'.repeat(130);
    const res = await backend.call({ method: 'POST', url: BASE, resourceId: id, payload: { name, description } });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.headers['x-iris-registry'] as string)).toEqual({ live: [id] });
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['created_at', 'creator_id', 'description', 'id', 'modified_at', 'n_downloaded', 'n_failed', 'n_items', 'name', 'request_id', 'status'].sort(),
    );
    expect(body).toMatchObject({ id, creator_id: 1, n_items: 0, n_downloaded: 0, n_failed: 0, status: 'not-downloaded' });
    expect(Array.from(body.name)).toHaveLength(16);
    expect(body.name).toBe('😀😀😀😀😀😀😀😀😀😀 图像集合名');
    expect(Array.from(body.description)).toHaveLength(128);
    expect(body.created_at).toMatch(TIME_FORMAT);
    expect(body.modified_at).toMatch(TIME_FORMAT);
    expect(typeof body.request_id).toBe('string');

    const form = await backend.call({ method: 'POST', url: BASE, resourceId: newResourceId(), payload: 'name=form%20set', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.json()).toMatchObject({ name: 'form set', description: '' });
    const mp = multipart({ name: 'multipart set', description: '多' });
    const multi = await backend.call({ method: 'POST', url: BASE, resourceId: newResourceId(), payload: mp.payload, headers: mp.headers });
    expect(multi.json()).toMatchObject({ name: 'multipart set', description: '多' });

    for (const payload of [{}, { name: '' }, { name: '   ' }, { description: 'no name' }]) {
      const missing = await backend.call({ method: 'POST', url: BASE, resourceId: newResourceId(), payload });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ error_code: 5004 });
      expect(missing.headers['x-iris-registry']).toBeUndefined();
    }
  });

  it('lists on both paths without request ids inside results, only the caller’s sets', async () => {
    const mine = await createImageSet(backend, 'listed', 7);
    await createImageSet(backend, 'other account', 8);
    for (const url of ['/get_image_sets/_0000014', BASE]) {
      const res = await backend.call({ method: 'GET', url, accountId: 7 });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(typeof body.request_id).toBe('string');
      expect(body.results.map((r: { id: string }) => r.id)).toEqual([mine]);
      expect(body.results[0].request_id).toBeUndefined();
      expect(body.results[0]).toMatchObject({ name: 'listed', creator_id: 7, status: 'not-downloaded' });
    }
  });

  it('gets, modifies with PUT (JSON and form) and POST, and refuses empty names', async () => {
    const id = await createImageSet(backend, 'before');
    expect((await get(id)).json()).toMatchObject({ id, name: 'before' });
    expect((await get(id, 2)).statusCode).toBe(404);
    const unknown = await get(newResourceId());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error_code: 2001 });

    const put = await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload: { name: 'after', description: 'd' } });
    expect(put.json()).toMatchObject({ id, name: 'after', description: 'd' });
    const form = await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload: 'description=only%20this', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.json()).toMatchObject({ name: 'after', description: 'only this' });
    const post = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { name: 'posted' } });
    expect(post.json()).toMatchObject({ name: 'posted', description: 'only this' });

    for (const payload of [{ name: '' }, {}]) {
      const bad = await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error_code: 5004 });
    }
    const missing = await backend.call({ method: 'PUT', url: `${BASE}/${newResourceId()}`, payload: { name: 'x' } });
    expect(missing.json()).toMatchObject({ error_code: 2001 });
  });

  it('adds one image synchronously (form or JSON), overwrites meta and tags of an existing URL without downloading again', async () => {
    const id = await createImageSet(backend);
    const url = images.url(1, 'png');
    const added = await backend.call({
      method: 'POST',
      url: `${BASE}/${id}`,
      payload: `image_url=${encodeURIComponent(url)}&meta=${encodeURIComponent('第一')}&tags=${encodeURIComponent('红|蓝|红')}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(added.statusCode).toBe(200);
    expect(added.json()).toMatchObject({ id, n_items: 1, n_downloaded: 1, n_failed: 0, status: 'downloaded' });
    expect(images.hits.get('/img/1.png')).toBe(1);

    const again = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { url, meta: 'second', tags: 'x' } });
    expect(again.json()).toMatchObject({ n_items: 1, n_downloaded: 1 });
    expect(images.hits.get('/img/1.png')).toBe(1);
    const changes = await listRecordChanges(backend.app.db.pool, id, 0, 100);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ url, meta: 'second', tags: ['x'], status: 'downloaded', deleted: false });
    expect(changes[0]!.blob_key).toMatch(/^[0-9a-f]{64}$/);
    expect(await backend.app.blobs.has(changes[0]!.blob_key!)).toBe(true);

    for (const ext of ['jpg', 'webp', 'gif'] as const) {
      const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { image_url: images.url(2, ext) } });
      expect(res.statusCode).toBe(200);
    }
    const mp = multipart({ image_url: images.url(3, 'png'), meta: 'multipart', tags: 'm' });
    expect((await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: mp.payload, headers: mp.headers })).statusCode).toBe(200);
    expect((await get(id)).json()).toMatchObject({ n_items: 5, n_downloaded: 5, status: 'downloaded' });
  });

  it('answers 500/4001 for URLs that cannot be downloaded and keeps no record; 400/5001 for bad fields', async () => {
    const id = await createImageSet(backend);
    for (const path of ['/missing.jpg', '/bad/truncated.jpg', '/bad/page.jpg', '/bad/huge.png', '/status/503']) {
      const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { image_url: `${images.base}${path}` } });
      expect(res.statusCode, path).toBe(500);
      expect(res.json()).toMatchObject({ error_code: 4001 });
    }
    expect((await get(id)).json()).toMatchObject({ n_items: 0, status: 'not-downloaded' });

    const tooLong = `${images.base}/${'a'.repeat(520)}.jpg`;
    for (const payload of [{ image_url: '' }, { image_url: tooLong }, { image_url: 'ftp://example.com/a.jpg' }, { image_url: images.url(1), meta: '😀'.repeat(513) }]) {
      const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error_code: 5001 });
    }
    // 512 emoji of meta are 512 characters (1024 UTF-16 units): accepted.
    const okMeta = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { image_url: images.url(9), meta: '😀'.repeat(512) } });
    expect(okMeta.statusCode).toBe(200);
    const unknownSet = await backend.call({ method: 'POST', url: `${BASE}/${newResourceId()}`, payload: { image_url: images.url(1) } });
    expect(unknownSet.json()).toMatchObject({ error_code: 2001 });
  });

  it('adds many from CSV (quotes, BOM, CRLF), downloads in the background and moves the status', async () => {
    const id = await createImageSet(backend);
    const lines = [
      `${images.url(10)},"meta, with comma","a|b"`,
      `${images.url(11, 'png')},"say ""hi""",`,
      `${images.url(12, 'webp')}`,
      '',
      `${images.url(13, 'gif')},,"x,y|{z}|q""r|标签|c"`,
      `${images.base}/missing.jpg,gone,`,
      `${images.base}/bad/page.jpg,html,`,
    ];
    const file = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines.join('\r\n'))]);
    const upload = fileUpload('urls_to_add', file);
    const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: upload.payload, headers: upload.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, n_items: 6 });
    expect(['not-downloaded', 'downloading', 'downloaded']).toContain(res.json().status);

    const done = await settled(id);
    expect(done).toMatchObject({ n_items: 6, n_downloaded: 4, n_failed: 2, status: 'downloaded' });
    const records = await listRecordChanges(backend.app.db.pool, id, 0, 100);
    const byUrl = new Map(records.map((r) => [r.url, r]));
    expect(byUrl.get(images.url(10))).toMatchObject({ meta: 'meta, with comma', tags: ['a', 'b'], status: 'downloaded' });
    expect(byUrl.get(images.url(11, 'png'))).toMatchObject({ meta: 'say "hi"', tags: [] });
    expect(byUrl.get(images.url(13, 'gif'))).toMatchObject({ meta: '', tags: ['x,y', '{z}', 'q"r', '标签', 'c'] });
    expect(byUrl.get(`${images.base}/missing.jpg`)).toMatchObject({ status: 'failed', blob_key: null });
    const stored = await backend.app.db.pool.query(`SELECT width, height, last_error FROM data_set_records WHERE set_id = $1 AND url = $2`, [id, images.url(10)]);
    expect(stored.rows[0]).toMatchObject({ width: 96 + 3, height: 64 });
  });

  it('reads a .tar.gz holding the CSV and a gzipped CSV, detected by content', async () => {
    const id = await createImageSet(backend);
    const archive = await tarGz('list.csv', `${images.url(20)},in tar,t\n${images.url(21)}\n`, [{ name: '._list.csv', content: 'garbage,,,,,\n' }]);
    const upload = fileUpload('urls_to_add', archive, 'whatever.bin');
    const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: upload.payload, headers: upload.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ n_items: 2 });
    const gz = fileUpload('urls_to_add', zlib.gzipSync(`${images.url(22)},gz\n`), 'plain.csv');
    expect((await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: gz.payload, headers: gz.headers })).json()).toMatchObject({ n_items: 3 });
    const done = await settled(id);
    expect(done).toMatchObject({ n_items: 3, n_downloaded: 3 });
  });

  it('refuses a malformed file naming the line, and changes nothing', async () => {
    const id = await createImageSet(backend);
    const good = Array.from({ length: 1200 }, (_, i) => `${images.url(100 + i)},m${i}`);
    const cases: [string, RegExp][] = [
      [[...good, 'not a url,meta'].join('\n'), /line 1201/],
      [[...good.slice(0, 3), `${images.url(1)},m,t,extra`].join('\n'), /line 4/],
      [[`${images.url(1)},${'m'.repeat(513)}`].join('\n'), /line 1/],
      [[`${images.url(1)},"unterminated`, `${images.url(2)}`].join('\n'), /line/],
    ];
    for (const [content, line] of cases) {
      const upload = fileUpload('urls_to_add', content);
      const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: upload.payload, headers: upload.headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error_code: 5001 });
      expect(res.json().message).toMatch(line);
    }
    expect((await get(id)).json()).toMatchObject({ n_items: 0 });
    expect(await listRecordChanges(backend.app.db.pool, id, 0, 10)).toHaveLength(0);
  });

  it('deletes many by CSV (first column, more columns ignored) and keeps tombstones for the change feed', async () => {
    const id = await createImageSet(backend);
    const add = fileUpload('urls_to_add', [30, 31, 32].map((n) => images.url(n)).join('\n'));
    await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: add.payload, headers: add.headers });
    await settled(id);
    const before = await listRecordChanges(backend.app.db.pool, id, 0, 100);
    const lastSeq = Math.max(...before.map((r) => r.change_seq));

    const bad = fileUpload('urls_to_delete', `${images.url(30)}\nnope`);
    const refused = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: bad.payload, headers: bad.headers });
    expect(refused.json()).toMatchObject({ error_code: 5001 });
    expect((await get(id)).json()).toMatchObject({ n_items: 3 });

    const del = fileUpload('urls_to_delete', `${images.url(30)},ignored,columns,here\n"${images.url(31)}"\n${images.base}/never-added.jpg\n`);
    const res = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: del.payload, headers: del.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ n_items: 1, n_downloaded: 1, status: 'downloaded' });
    const changes = await listRecordChanges(backend.app.db.pool, id, lastSeq, 100);
    expect(changes.map((c) => [c.url, c.deleted]).sort()).toEqual([
      [images.url(30), true],
      [images.url(31), true],
    ]);

    // Re-adding a deleted URL makes a new record; the account's URL cache means no new download.
    const hitsBefore = images.hits.get('/img/30.jpg');
    await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { image_url: images.url(30) } });
    expect(images.hits.get('/img/30.jpg')).toBe(hitsBefore);
    expect((await get(id)).json()).toMatchObject({ n_items: 2, n_downloaded: 2 });
  });

  it('does not download a URL again for another set of the same account', async () => {
    const first = await createImageSet(backend);
    const second = await createImageSet(backend);
    const url = images.url(40);
    await backend.call({ method: 'POST', url: `${BASE}/${first}`, payload: { image_url: url } });
    const upload = fileUpload('urls_to_add', `${url},again\n`);
    const res = await backend.call({ method: 'POST', url: `${BASE}/${second}`, payload: upload.payload, headers: upload.headers });
    // Known URL: stored as downloaded at once.
    expect(res.json()).toMatchObject({ n_items: 1, n_downloaded: 1, status: 'downloaded' });
    expect(images.hits.get('/img/40.jpg')).toBe(1);
  });

  it('retries transient failures with back-off and fails permanent ones at once', async () => {
    const id = await createImageSet(backend);
    const urls = [`${images.base}/flaky/a/2`, `${images.base}/status/503`, `${images.base}/slow.jpg`, `${images.base}/missing.jpg`];
    const upload = fileUpload('urls_to_add', urls.join('\n'));
    const before503 = images.hits.get('/status/503') ?? 0;
    await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: upload.payload, headers: upload.headers });
    const done = await settled(id);
    expect(done).toMatchObject({ n_items: 4, n_downloaded: 1, n_failed: 3 });
    expect(images.hits.get('/flaky/a/2')).toBe(3);
    expect(images.hits.get('/status/503')! - before503).toBe(3); // IRIS_DOWNLOAD_MAX_ATTEMPTS
    expect(images.hits.get('/missing.jpg')).toBeGreaterThanOrEqual(1);
    const rows = await backend.app.db.pool.query<{ url: string; attempts: number; last_error: string }>(
      'SELECT url, attempts, last_error FROM data_set_records WHERE set_id = $1 ORDER BY url',
      [id],
    );
    const missing = rows.rows.find((r) => r.url.endsWith('/missing.jpg'))!;
    expect(missing.attempts).toBe(1);
    expect(missing.last_error).toMatch(/404/);
    expect(rows.rows.find((r) => r.url.endsWith('/slow.jpg'))!.last_error).toMatch(/longer than/);
  });

  it('deletes with POST and no body, or DELETE; refuses 403/3001 while a service depends on the set', async () => {
    const id = await createImageSet(backend);
    const inUse = new Set([id]);
    const unregister = registerSetUsageCheck(async (setId) => inUse.has(setId));
    try {
      const refused = await backend.call({ method: 'POST', url: `${BASE}/${id}` });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error_code: 3001 });
      inUse.clear();
      const res = await backend.call({ method: 'POST', url: `${BASE}/${id}` });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(JSON.parse(res.headers['x-iris-registry'] as string)).toEqual({ deleted: [id] });
      expect((await get(id)).statusCode).toBe(404);
    } finally {
      unregister();
    }
    // A body the route does not recognise is refused and touches nothing: only no body at all deletes.
    const kept = await createImageSet(backend);
    for (const payload of ['{}', '{"image_url": null}', '{"unknown": 1}', 'foo=bar']) {
      const headers = { 'content-type': payload.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded' };
      const res = await backend.call({ method: 'POST', url: `${BASE}/${kept}`, payload, headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error_code: 5001 });
      expect((await get(kept)).statusCode).toBe(200);
    }
    const other = await createImageSet(backend);
    const viaDelete = await backend.call({ method: 'DELETE', url: `${BASE}/${other}/` });
    expect(viaDelete.statusCode).toBe(204);
    const again = await backend.call({ method: 'DELETE', url: `${BASE}/${other}` });
    expect(again.json()).toMatchObject({ error_code: 2001 });
  });
});
