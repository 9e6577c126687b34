/**
 * Batch tasks over HTTP against a real backend (real PostgreSQL, pg-boss workers, inference threads, a
 * loopback image server): prepare checks and errors, apply rules, revoke, info and list, a full run to
 * SUCCESS with split result files, and the signed result links.
 */
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, INTERNAL_HEADERS, newResourceId } from '@iris/shared';
import { photoJpeg } from '../support/test-images.js';
import { startImageServer, type ImageServer } from '../support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { apply, expectBatchError, info, jsonLines, linkPath, prepare, waitForState, type TaskData } from './batch-helpers.js';

const TIME_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

async function flat(r: number, g: number, b: number): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: { r, g, b } } }).png().toBuffer();
}

describe('batch tasks', () => {
  /** Runs tasks (job workers on). Three lines per result file, so a task of six URLs gets two files. */
  let running: TestBackend;
  /** No job workers: applied tasks stay PENDING, for the state rules. */
  let queued: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    // Domain settings are read from the process environment at build time.
    process.env.IRIS_BATCH_LINES_PER_FILE = '3';
    try {
      [running, queued, images] = await Promise.all([
        startTestBackend({ IRIS_PUBLIC_EDGE_URL: 'https://api.example.com' }),
        startTestBackend({}, { workers: false }),
        startImageServer(),
      ]);
    } finally {
      delete process.env.IRIS_BATCH_LINES_PER_FILE;
    }
    images.set('/red.png', await flat(255, 0, 0), 'image/png');
    images.set('/green.png', await flat(0, 200, 0), 'image/png');
    images.set('/blue.png', await flat(0, 0, 255), 'image/png');
    images.set('/photo.jpg', await photoJpeg(320, 240, 7), 'image/jpeg');
    images.set('/page.jpg', '<html>not an image</html>', 'image/jpeg');
  });
  afterAll(async () => {
    await Promise.all([running?.close(), queued?.close(), images?.close()]);
  });

  const twoUrls = () => `${images.url('/red.png')}\n${images.url('/blue.png')}\n`;

  it('lists the ready-made services of the region, not search or data-set ids', async () => {
    const res = await running.call({ method: 'GET', url: '/batch/_1000001/services' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ is_error: 0, request_id: expect.any(String) });
    expect(body.data).toEqual(expect.arrayContaining(['_0000072', '_0000073', '_0000074', '_0000111', '_0000049', '_0000024', '_0000039', '_0000159']));
    expect(body.data).not.toContain('_0000014');
    expect(body.data.every((id: unknown) => typeof id === 'string')).toBe(true);
    // Only what the edge's signed list says the account is granted here.
    const granted = await running.call({ method: 'GET', url: '/batch/_1000001/services', services: ['_0000049', '_0000072'] });
    expect(granted.json().data).toEqual(['_0000049', '_0000072']);
  });

  it('prepares a task from a file with a byte-order mark, CRLF and empty lines', async () => {
    const content = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${images.url('/red.png')}\r\n\r\n${images.url('/blue.png')}\r\n  \r\n${images.url('/green.png')}`)]);
    const res = await prepare(queued, '_0000072', content);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ is_error: 0, data: { state: 'RECEIVED', task_id: res.taskId, total: 3 } });
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(['estimated_processing_time', 'estimated_waiting_time', 'state', 'task_id', 'total']);
    expect(Number.isInteger(data.estimated_processing_time)).toBe(true);
    expect(data.estimated_processing_time).toBeGreaterThan(0);
    expect(Number.isInteger(data.estimated_waiting_time)).toBe(true);
    expect(JSON.parse(String(res.headers[INTERNAL_HEADERS.registry]))).toEqual({ live: [res.taskId] });

    const details = (await info(queued, res.taskId)).json().data as TaskData;
    expect(Object.keys(details).sort()).toEqual(['csv', 'received_time', 'service_id', 'state', 'task_id', 'total']);
    expect(details).toMatchObject({ service_id: '_0000072', state: 'RECEIVED', task_id: res.taskId, total: 3 });
    expect(details.received_time).toMatch(TIME_FORMAT);
    // The input file as uploaded, through its signed link.
    const csv = await queued.call({ method: 'GET', url: linkPath(details.csv) });
    expect(csv.statusCode).toBe(200);
    expect(csv.rawPayload.equals(content)).toBe(true);
  });

  it('answers each prepare problem with its batch error', async () => {
    expectBatchError(await prepare(queued, null, twoUrls()), 400001);
    expectBatchError(await prepare(queued, '_0000072', null), 400002);
    expectBatchError(await prepare(queued, '_0000072', Buffer.from([0x68, 0x74, 0xff, 0xfe, 0x0a])), 400003);
    expectBatchError(await prepare(queued, '_0000072', '\r\n\n  \n'), 400004);
    expectBatchError(await prepare(queued, '_0000072', Buffer.from([0xef, 0xbb, 0xbf])), 400004);
    expectBatchError(await prepare(queued, '_0009999', twoUrls()), 400007);
    expectBatchError(await prepare(queued, '_0000014', twoUrls()), 400008);
    // A colour parameter the service refuses is refused at prepare, not per line.
    expectBatchError(await prepare(queued, '_0000072', twoUrls(), { extra: { granularity: 'sparkly' } }), 1111);
  });

  it('lists invalid and duplicated URLs by 0-based line index', async () => {
    const a = images.url('/red.png');
    const b = images.url('/blue.png');
    const file = [a, 'not a url', '', b, a, 'ftp://example.com/x.jpg', b, a].join('\n');
    const data = expectBatchError(await prepare(queued, '_0000072', file), 400005);
    expect(data.urls_duplicated).toEqual({ [a]: [0, 4, 7], [b]: [3, 6] });
    expect(data.urls_verify_failed).toEqual({ '1': 'not a url', '5': 'ftp://example.com/x.jpg' });

    const single = expectBatchError(await prepare(queued, '_0000072', `${a}\n`), 400005);
    expect(single).toMatchObject({ urls_duplicated: {}, urls_verify_failed: {} });
  });

  it('refuses a search service id as not supported by batch', async () => {
    const setId = newResourceId();
    expect((await queued.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, payload: { name: 'b' } })).statusCode).toBe(200);
    const serviceId = newResourceId();
    const created = await queued.call({ method: 'POST', url: `/image_sets/_0000014/${setId}/services`, resourceId: serviceId, payload: { name: 's', scenario: 'general' } });
    expect(created.statusCode).toBe(200);
    expectBatchError(await prepare(queued, serviceId, twoUrls()), 400008);
    // Another account's search service does not exist for the caller.
    expectBatchError(await prepare(queued, serviceId, twoUrls(), { accountId: 2 }), 400007);
  });

  it('applies, refuses a second running task per service, revokes only PENDING tasks', async () => {
    const first = await prepare(queued, '_0000074', twoUrls());
    const second = await prepare(queued, '_0000074', twoUrls());
    const applied = await apply(queued, first.taskId);
    expect(applied.statusCode).toBe(200);
    expect(applied.json()).toMatchObject({ is_error: 0, data: { state: 'PENDING', task_id: first.taskId, total: 2 } });
    expect(Object.keys(applied.json().data).sort()).toEqual(['estimated_processing_time', 'estimated_waiting_time', 'state', 'task_id', 'total']);

    const pending = (await info(queued, first.taskId)).json().data as TaskData;
    expect(Object.keys(pending).sort()).toEqual(['csv', 'estimated_processing_time', 'estimated_waiting_time', 'received_time', 'service_id', 'state', 'task_id', 'total']);

    expectBatchError(await apply(queued, second.taskId), 400010);
    expectBatchError(await apply(queued, first.taskId), 400010); // applying twice
    expectBatchError(await apply(queued, 'nosuchtask0000000000'), 400011);
    expectBatchError(await apply(queued, first.taskId, { accountId: 2 }), 400011);
    expectBatchError(await queued.call({ method: 'POST', url: '/batch/_1000001/task/apply', payload: {} }), 400011);

    expectBatchError(await queued.call({ method: 'POST', url: `/batch/_1000001/task/revoke/${second.taskId}` }), 400012); // RECEIVED
    const revoked = await queued.call({ method: 'POST', url: `/batch/_1000001/task/revoke/${first.taskId}` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ data: { code: 200001, args: [first.taskId] }, is_error: 0, request_id: expect.any(String) });
    expect((await info(queued, first.taskId)).json().data.state).toBe('REVOKED');
    expectBatchError(await queued.call({ method: 'POST', url: `/batch/_1000001/task/revoke/${first.taskId}` }), 400012);
    expectBatchError(await apply(queued, first.taskId), 400011); // apply's own code: no task to apply
    expectBatchError(await queued.call({ method: 'POST', url: '/batch/_1000001/task/revoke/nosuchtask0000000000' }), 400011);
    // With the first one revoked, the service is free again.
    expect((await apply(queued, second.taskId)).statusCode).toBe(200);
  });

  it('counts the daily limit over tasks applied in the current UTC day', async () => {
    const account = 7;
    const quotas = { ...DEFAULT_QUOTAS, dailyBatchTasks: 2 };
    const ids: string[] = [];
    for (const service of ['_0000072', '_0000073', '_0000074']) ids.push((await prepare(queued, service, twoUrls(), { accountId: account })).taskId);
    expect((await apply(queued, ids[0]!, { accountId: account, quotas })).statusCode).toBe(200);
    expect((await apply(queued, ids[1]!, { accountId: account, quotas })).statusCode).toBe(200);
    expectBatchError(await apply(queued, ids[2]!, { accountId: account, quotas }), 400009);
    // Revoking does not give the day's allowance back; a task applied yesterday does not count.
    expect((await queued.call({ method: 'POST', url: `/batch/_1000001/task/revoke/${ids[0]}`, accountId: account })).statusCode).toBe(200);
    expectBatchError(await apply(queued, ids[2]!, { accountId: account, quotas }), 400009);
    const pool = new pg.Pool({ connectionString: queued.databaseUrl, max: 1 });
    await pool.query(`UPDATE batch_tasks SET applied_at = date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 second' WHERE id = $1`, [ids[0]]);
    await pool.end();
    expect((await apply(queued, ids[2]!, { accountId: account, quotas })).statusCode).toBe(200);
  });

  it('lists tasks received in [start, end), from the query or a body on GET', async () => {
    const account = 9;
    const early = await prepare(queued, '_0000072', twoUrls(), { accountId: account });
    const late = await prepare(queued, '_0000073', twoUrls(), { accountId: account });
    const pool = new pg.Pool({ connectionString: queued.databaseUrl, max: 1 });
    await pool.query(`UPDATE batch_tasks SET received_at = '2024-03-01T10:00:00Z' WHERE id = $1`, [early.taskId]);
    await pool.query(`UPDATE batch_tasks SET received_at = '2024-03-01T11:00:00Z' WHERE id = $1`, [late.taskId]);
    await pool.end();
    const list = async (query: string, payload?: object) => {
      const res = await queued.call({ method: 'GET', url: `/batch/_1000001/tasks${query}`, accountId: account, ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(200);
      return res.json().data as Record<string, TaskData>;
    };
    const all = await list('');
    expect(Object.keys(all).sort()).toEqual([early.taskId, late.taskId].sort());
    expect(all[early.taskId]).toMatchObject({ task_id: early.taskId, state: 'RECEIVED', received_time: '2024-03-01T10:00:00Z', total: 2 });
    expect(Object.keys(await list('?start=2024-03-01T10:00:00Z&end=2024-03-01T11:00:00Z'))).toEqual([early.taskId]);
    expect(Object.keys(await list('?start=2024-03-01T10:00:01Z'))).toEqual([late.taskId]);
    expect(Object.keys(await list('?end=2024-03-01T10:00:00Z'))).toEqual([]);
    expect(Object.keys(await list('', { start: '2024-03-01T10:30:00Z', end: '2024-03-02T00:00:00Z' }))).toEqual([late.taskId]);
    const form = multipart({ start: '2024-03-01T09:00:00Z', end: '2024-03-01T10:00:01Z' });
    const viaMultipart = await queued.call({ method: 'GET', url: '/batch/_1000001/tasks', accountId: account, payload: form.payload, headers: form.headers });
    expect(Object.keys(viaMultipart.json().data)).toEqual([early.taskId]);

    // A date alone (a client's own example) is its midnight UTC.
    expect(Object.keys(await list('?start=2024-03-01&end=2024-03-02'))).toHaveLength(2);
    expect(Object.keys(await list('?end=2024-03-01'))).toEqual([]);
    for (const start of ['2024-03-01T10:00', '2024-02-30', '2024-3-1', '20240301']) {
      const bad = await queued.call({ method: 'GET', url: `/batch/_1000001/tasks?start=${start}`, accountId: account });
      expect(expectBatchError(bad, 1111).message, start).toMatch(/%Y-%m-%dT%H:%M:%SZ/);
    }
    // Another account sees none of them.
    expect(Object.keys((await queued.call({ method: 'GET', url: '/batch/_1000001/tasks', accountId: 10 })).json().data)).toEqual([]);
  });

  it('runs a colour task to SUCCESS: one line per URL in input order, failures as error lines, split files', async () => {
    const urls = [images.url('/red.png'), images.url('/missing.png'), images.url('/blue.png'), '', images.url('/page.jpg'), images.url('/green.png'), images.url('/photo.jpg')];
    const prepared = await prepare(running, '_0000072', urls.join('\n'), { extra: { granularity: 'dominant', return_type: 'w3c' } });
    expect(prepared.statusCode).toBe(200);
    expect((await apply(running, prepared.taskId)).statusCode).toBe(200);
    const done = await waitForState(running, prepared.taskId, ['SUCCESS', 'FAILURE']);
    expect(done.state).toBe('SUCCESS');
    expect(Object.keys(done).sort()).toEqual(['csv', 'download_urls', 'received_time', 'service_id', 'state', 'success', 'task_id', 'total']);
    expect(done).toMatchObject({ total: 6, success: 6 });
    expect(done.download_urls).toHaveLength(2);
    for (const link of done.download_urls!) expect(link).toMatch(/^https:\/\/api\.example\.com\/batch\/_1000001\/results\/[a-z0-9]+\/results-000[12]\.jsonl\?expires=\d+&signature=[0-9a-f]{64}$/);

    const lines = [];
    for (const link of done.download_urls!) {
      const res = await running.call({ method: 'GET', url: linkPath(link) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/x-ndjson');
      lines.push(...jsonLines(res.payload));
    }
    expect(lines.map((l) => l.line)).toEqual([0, 1, 2, 4, 5, 6]);
    expect(lines.map((l) => l.url)).toEqual(urls.filter(Boolean));
    const [red, missing, blue, page, green, photo] = lines;
    expect(red!.result).toMatchObject({ is_err: 0, request_id: `${prepared.taskId}-0`, results: [{ w3c: expect.any(String), hex: '#ff0000' }] });
    expect(blue!.result).toMatchObject({ results: [{ hex: '#0000ff' }] });
    expect(green!.result).toMatchObject({ results: [{ hex: expect.stringMatching(/^#00c800$/i) }] });
    expect(typeof (photo!.result as { time: unknown }).time).toBe('number');
    // The colour services' own codes: 408 for an image that cannot be downloaded or decoded.
    expect(missing!.error).toEqual({ error_code: 408, message: expect.stringMatching(/cannot be downloaded/) });
    expect(page!.error).toMatchObject({ error_code: 408 });
    expect(missing!.result).toBeUndefined();
    expect(images.hits('/red.png')).toBeGreaterThanOrEqual(1);
  });

  it('runs a detect task with the detect envelope and detect error codes', async () => {
    const prepared = await prepare(running, '_0000049', [images.url('/photo.jpg'), images.url('/nothing.jpg')].join('\n'));
    expect((await apply(running, prepared.taskId)).statusCode).toBe(200);
    const done = await waitForState(running, prepared.taskId, ['SUCCESS', 'FAILURE']);
    expect(done.state).toBe('SUCCESS');
    const [file] = done.download_urls!;
    const [photo, nothing] = jsonLines((await running.call({ method: 'GET', url: linkPath(file!) })).payload);
    expect(photo!.result).toMatchObject({ boxes_detected: expect.any(Array), detecttime: expect.any(String), time: expect.any(String), get_image_time: expect.any(String), ver: '1.0' });
    expect(nothing!.error).toMatchObject({ error_code: 400004 });
  });

  it('ends in FAILURE only when the task itself cannot run (its service is gone)', async () => {
    const taskId = newResourceId();
    const pool = new pg.Pool({ connectionString: running.databaseUrl, max: 1 });
    // A queued task whose service no longer exists (as after a custom classifier was deleted).
    await pool.query(`INSERT INTO batch_tasks (id, account_id, service_id, state, total, applied_at) VALUES ($1, 1, '_0009999', 'PENDING', 2, now())`, [taskId]);
    await pool.query(`INSERT INTO batch_items (task_id, line, url) VALUES ($1, 0, $2), ($1, 1, $3)`, [taskId, images.url('/red.png'), images.url('/blue.png')]);
    await running.app.batchWorker.enqueue(taskId);
    const failed = await waitForState(running, taskId, ['FAILURE', 'SUCCESS']);
    expect(failed.state).toBe('FAILURE');
    expect(Object.keys(failed).sort()).toEqual(['csv', 'received_time', 'service_id', 'state', 'task_id', 'total']);
    const row = await pool.query('SELECT message, (SELECT count(*) FROM batch_items WHERE task_id = $1) AS items FROM batch_tasks WHERE id = $1', [taskId]);
    await pool.end();
    expect(row.rows[0].message).toMatch(/_0009999 cannot run/);
    expect(Number(row.rows[0].items)).toBe(0);
  });

  it('serves result files only with a genuine, unexpired link of the owning account', async () => {
    const prepared = await prepare(running, '_0000073', twoUrls());
    expect((await apply(running, prepared.taskId)).statusCode).toBe(200);
    const done = await waitForState(running, prepared.taskId, ['SUCCESS', 'FAILURE']);
    const link = new URL(done.download_urls![0]!);
    const path = link.pathname;
    const expires = link.searchParams.get('expires')!;
    const signature = link.searchParams.get('signature')!;
    expect((await running.call({ method: 'GET', url: `${path}?expires=${expires}&signature=${signature}` })).statusCode).toBe(200);

    expectBatchError(await running.call({ method: 'GET', url: path }), 1104, 401);
    expectBatchError(await running.call({ method: 'GET', url: `${path}?expires=${Number(expires) + 1}&signature=${signature}` }), 1104, 401);
    expectBatchError(await running.call({ method: 'GET', url: `${path.replace('results-0001', 'results-0002')}?expires=${expires}&signature=${signature}` }), 1104, 401);
    expectBatchError(await running.call({ method: 'GET', url: `${path}?expires=${expires}&signature=${signature}`, accountId: 2 }), 400011);
    expectBatchError(await running.call({ method: 'GET', url: `/batch/_1000001/results/${prepared.taskId}/..%2F..%2Fetc?expires=${expires}&signature=${signature}` }), 1108, 404);

    // An expired link: signed for the past with the backend's own secret.
    const { signedLink } = await import('../../src/domains/batch/batch-links.js');
    const old = signedLink('http://edge', running.config.linkSecret, { accountId: 1, taskId: prepared.taskId, file: 'results-0001.jsonl' }, Date.now() - 60_000);
    expectBatchError(await running.call({ method: 'GET', url: linkPath(old) }), 1105, 401);
    // Links have their own key: one signed with the internal secret is refused.
    const withInternal = signedLink('http://edge', running.config.internalSecret, { accountId: 1, taskId: prepared.taskId, file: 'results-0001.jsonl' }, Date.now() + 60_000);
    expectBatchError(await running.call({ method: 'GET', url: linkPath(withInternal) }), 1104, 401);
  });

  it('builds links on the public address the call came through (signed context), else IRIS_PUBLIC_EDGE_URL', async () => {
    const res = await prepare(queued, '_0000072', twoUrls());
    const url = `/batch/_1000001/task/info/${res.taskId}`;
    const viaRegion = (await queued.call({ method: 'GET', url, publicBase: 'http://ap-southeast.localhost:8787' })).json().data as TaskData;
    expect(viaRegion.csv).toMatch(new RegExp(`^http://ap-southeast\\.localhost:8787/batch/_1000001/results/${res.taskId}/urls\\.txt\\?expires=\\d+&signature=[0-9a-f]{64}$`));
    const fallback = (await queued.call({ method: 'GET', url })).json().data as TaskData;
    expect(fallback.csv.startsWith(`${queued.config.publicEdgeUrl.replace(/\/+$/, '')}/batch/_1000001/results/`)).toBe(true);
  });

  it('refuses a prepare the edge read differently (400/1111: the batch table has no such code), and a ready-made service the signed grants do not list', async () => {
    const form = multipart({ service_id: '_0000072', urls: { filename: 'urls.txt', content: twoUrls() } });
    const differs = await queued.call({ method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: newResourceId(), fields: { service_id: '_0000049' }, ...form });
    expect(differs.statusCode).toBe(400);
    expect(differs.json()).toMatchObject({ is_error: 1, data: { error_code: 1111 } });
    const notGranted = await queued.call({ method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: newResourceId(), services: ['_0000049'], ...form });
    expect(notGranted.statusCode).toBe(400);
    expect(notGranted.json()).toMatchObject({ is_error: 1, data: { error_code: 400008 } });
    const same = await queued.call({ method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: newResourceId(), fields: { service_id: '_0000072' }, ...form });
    expect(same.statusCode).toBe(200);
  });
});
