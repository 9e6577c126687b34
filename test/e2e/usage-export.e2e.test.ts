/**
 * Usage and export through the edge (edge → backend → PostgreSQL, real workerd): a set's records exported as
 * JSON lines with their download state, the stream stopped when the client goes away, and an account's
 * usage read back per region.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SetRecord } from '@iris/shared';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import { startImageServer, type ImageServer } from '../../region-backend/test/support/image-server.js';
import { waitUntil } from '../../region-backend/test/support/wait-for.js';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

const BIG_SET_RECORDS = 20_000;

describe('usage and export through the edge', () => {
  let platform: PlatformFixture;
  let images: ImageServer;
  let setId: string;
  const today = new Date().toISOString().slice(0, 10);
  const json = { 'content-type': 'application/json' };
  const lines = (text: string) => text.split('\n').filter((l) => l).map((l) => SetRecord.parse(JSON.parse(l)));
  const metric = async (name: string): Promise<number> => {
    const port = Number(new URL(platform.backendUrls['cn-east']).port) + 1000;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    return Number(line?.split(' ').pop() ?? NaN);
  };

  beforeAll(async () => {
    [platform, images] = await Promise.all([sharedPlatformFixture('usage-export'), startImageServer()]);
    images.set('/a.jpg', await photoJpeg(320, 240, 1));
    images.set('/b.jpg', await photoJpeg(300, 200, 2));
    const created = await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'exported' }) });
    setId = ((await created.json()) as { id: string }).id;
    const csv = new FormData();
    csv.append('urls_to_add', new Blob([['/a.jpg', '/b.jpg', '/missing.jpg'].map((p, i) => `${images.url(p)},m${i}`).join('\n')], { type: 'text/csv' }), 'urls.csv');
    expect((await platform.call(`/image_sets/_0000014/${setId}`, { method: 'POST', body: csv })).status).toBe(200);
    await waitUntil(
      () => platform.api.call('listSetRecords', { params: { kind: 'image_sets', id: setId } }),
      (page) => page.n_downloaded === 2 && page.n_failed === 1,
      120_000,
    );
  });
  afterAll(async () => {
    await Promise.all([platform?.stop(), images?.close()]);
  });

  it('exports every record of a set as JSON lines, with status and failure reason, for its owner only', async () => {
    const res = await platform.call(`/iris/image_sets/${setId}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const records = lines(await res.text());
    expect(records.map((r) => [r.meta, r.status])).toEqual([['m0', 'downloaded'], ['m1', 'downloaded'], ['m2', 'failed']]);
    expect(records[2]!.last_error).toMatch(/404/);
    expect(records[0]).toMatchObject({ width: 320, height: 240, last_error: null });

    const other = await platform.admin('POST', '/admin/accounts', { name: 'stranger' });
    const key = await platform.admin('POST', `/admin/accounts/${other.id}/keys`, {});
    const foreign = await platform.call(`/iris/image_sets/${setId}/export`, { keyId: String(key.key_id) });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error_code: 1002 });
  });

  it('streams a large export through the edge, and a client going away stops the backend reading it', async () => {
    const db = new pg.Client({ connectionString: platform.databaseUrls['cn-east'] });
    await db.connect();
    try {
      await db.query(
        // Failed already: no download worker claims them.
        `INSERT INTO data_set_records (set_id, url, meta, status, last_error)
         SELECT $1, 'http://pictures.test/' || g || '.jpg', repeat('x', 400), 'failed', 'imported as failed' FROM generate_series(1, $2::int) g`,
        [setId, BIG_SET_RECORDS],
      );
    } finally {
      await db.end();
    }
    const before = await metric('iris_export_records_total');
    const res = await fetch(`${platform.edgeUrl}/iris/image_sets/${setId}/export`, { headers: { 'x-ca-accesskeyid': platform.devAccount.key_id, 'x-ca-version': '1' } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.value!.byteLength).toBeGreaterThan(0);
    expect(new TextDecoder().decode(first.value).split('\n')[0]).toContain('"meta":"m0"');
    await reader.cancel();
    await waitUntil(() => metric('iris_exports_active'), (active) => active === 0, 60_000);
    const read = (await metric('iris_export_records_total')) - (Number.isNaN(before) ? 0 : before);
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(BIG_SET_RECORDS / 2);

    // Read to the end, the export has every record.
    const whole = await fetch(`${platform.edgeUrl}/iris/image_sets/${setId}/export?status=failed`, { headers: { 'x-ca-accesskeyid': platform.devAccount.key_id, 'x-ca-version': '1' } });
    expect((await whole.text()).split('\n').filter((l) => l).length).toBe(BIG_SET_RECORDS + 1);
  });

  it('reads the account’s usage per day and service beside its quotas, per region', async () => {
    const usage = await waitUntil(
      () => platform.api.call('getUsage', { query: { from: today, to: today } }),
      (u) => u.results.some((r) => r.service === 'downloads' && r.pictures_stored === 2) && u.results.some((r) => r.service === 'image_sets' && r.calls >= 2),
      60_000,
    );
    expect(usage).toMatchObject({ region: 'cn-east', from: today, to: today });
    expect(usage.results.find((r) => r.service === 'downloads')!.bytes_stored).toBeGreaterThan(1000);
    expect(usage.stored.records).toBe(BIG_SET_RECORDS + 3);
    expect(usage.quotas.image_sets).toBeGreaterThan(0);

    const elsewhere = await platform.call(`/iris/usage?from=${today}&to=${today}`, { host: 'ap-southeast.localhost' });
    expect(elsewhere.status).toBe(200);
    const east = (await elsewhere.json()) as { region: string; results: { service: string }[]; stored: { records: number } };
    expect(east.region).toBe('ap-southeast');
    expect(east.results.filter((r) => r.service !== 'iris')).toEqual([]);
    expect(east.stored.records).toBe(0);

    const bad = await platform.call('/iris/usage?from=2026-02-30');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error_code: 5001 });
  });

  it('gives a batch task’s state for support through the edge, to its owner only', async () => {
    const body = new FormData();
    body.append('service_id', '_0000072');
    body.append('urls', new Blob([`${images.url('/a.jpg')}\n${images.url('/b.jpg')}\n`], { type: 'text/plain' }), 'urls.txt');
    const prepared = await platform.call('/batch/_1000001/task/prepare', { method: 'POST', body });
    const summary = (await prepared.json()) as { data: { task_id: string } };
    expect(prepared.status, JSON.stringify(summary)).toBe(200);
    const res = await platform.call(`/iris/batch_tasks/${summary.data.task_id}/state`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'batch_tasks', id: summary.data.task_id, configuration: { service_id: '_0000072', state: 'RECEIVED' }, counters: { total: 2 }, recent_failures: [] });
    const other = await platform.admin('POST', '/admin/accounts', { name: 'support stranger' });
    const key = await platform.admin('POST', `/admin/accounts/${other.id}/keys`, {});
    const foreign = await platform.call(`/iris/batch_tasks/${summary.data.task_id}/state`, { keyId: String(key.key_id) });
    expect([foreign.status, ((await foreign.json()) as { error_code: number }).error_code]).toEqual([400, 400011]);
  });
});
