import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatformFixture, type PlatformFixture } from './platform-fixture.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('the platform end to end: edge → backends → PostgreSQL', () => {
  let platform: PlatformFixture;
  let otherKey: string;

  beforeAll(async () => {
    platform = await startPlatformFixture();
    const other = await platform.admin('POST', '/admin/accounts', { name: 'other' });
    const key = await platform.admin('POST', `/admin/accounts/${other.id}/keys`, {});
    otherKey = String(key.key_id);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const json = { 'content-type': 'application/json' };

  it('creates, gets and lists an image set through the edge', async () => {
    const created = await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: '春季新品 spring collection', description: 'd' }) });
    expect(created.status).toBe(200);
    const set = (await created.json()) as Record<string, unknown>;
    expect(set).toMatchObject({ name: '春季新品 spring coll', description: 'd', status: 'not-downloaded', n_items: 0, n_downloaded: 0, n_failed: 0, creator_id: platform.devAccount.account_id });
    expect(set.created_at).toMatch(TIME);
    expect(typeof set.request_id).toBe('string');

    const got = await platform.call(`/image_sets/_0000014/${set.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: set.id, name: set.name });

    const listed = (await (await platform.call('/get_image_sets/_0000014')).json()) as { results: { id: string }[] };
    expect(listed.results.map((r) => r.id)).toContain(set.id);

    // The contract's typed client: answers parsed by the operation's response schema.
    const typed = await platform.api.call('getImageSet', { params: { image_set_id: String(set.id) } });
    expect(typed).toMatchObject({ id: set.id, status: 'not-downloaded', n_items: 0 });
    const all = await platform.api.call('listImageSetsAlias');
    expect(all.results.map((r) => r.id)).toContain(set.id);
    const failures = await platform.api.call('listSetRecords', { params: { kind: 'image_sets', id: String(set.id) }, query: { status: 'failed' } });
    expect(failures).toMatchObject({ total: 0, n_failed: 0, results: [] });
  });

  it('keeps accounts apart: another account gets 403/1002 for the set', async () => {
    const created = (await (await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'mine' }) })).json()) as { id: string };
    const foreign = await platform.call(`/image_sets/_0000014/${created.id}`, { keyId: otherKey });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error_code: 1002 });
    const listed = (await (await platform.call('/get_image_sets/_0000014', { keyId: otherKey })).json()) as { results: { id: string }[] };
    expect(listed.results.map((r) => r.id)).not.toContain(created.id);
  });

  it('keeps regions apart: a cn-east set does not exist through the ap-southeast address', async () => {
    const created = (await (await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'east' }) })).json()) as { id: string };
    const viaOtherRegion = await platform.call(`/image_sets/_0000014/${created.id}`, { host: 'ap-southeast.localhost' });
    expect(viaOtherRegion.status).toBe(404);
    expect(await viaOtherRegion.json()).toMatchObject({ error_code: 2001 });
    const viaDefault = await platform.call(`/image_sets/_0000014/${created.id}`, { host: 'cn-east.localhost' });
    expect(viaDefault.status).toBe(200);
  });

  it('refuses unauthenticated calls at the edge and forged calls straight to a backend', async () => {
    const anonymous = await fetch(`${platform.edgeUrl}/get_image_sets/_0000014`, { headers: { 'x-ca-version': '1' } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error_code: 1101 });

    const forged = await fetch(`${platform.backendUrls['cn-east']}/get_image_sets/_0000014`, {
      headers: { 'x-iris-account': String(platform.devAccount.account_id), 'x-iris-timestamp': String(Date.now()), 'x-iris-context': 'e30', 'x-iris-signature': '0'.repeat(64) },
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error_code: 9004 });
  });

  it('answers analysis errors in the analysis shape through the edge', async () => {
    const res = await platform.call('/detect/_0000049', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, data: { is_err: 1, error_code: 400003 } });
  });

  it('gives batch result links on the address of each region that download with nothing but the link', async () => {
    const port = new URL(platform.edgeUrl).port;
    const urls = 'http://127.0.0.1:9/a.jpg\nhttp://127.0.0.1:9/b.jpg\n';
    const boundary = 'irisLinkTest';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="service_id"\r\n\r\n_0000049\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="urls"; filename="urls.txt"\r\nContent-Type: text/plain\r\n\r\n${urls}\r\n--${boundary}--\r\n`,
    );
    for (const host of ['cn-east.localhost', 'ap-southeast.localhost']) {
      const prepared = await platform.call('/batch/_1000001/task/prepare', { method: 'POST', host, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
      const summary = (await prepared.json()) as { data: { task_id: string } };
      expect(prepared.status, JSON.stringify(summary)).toBe(200);
      const info = (await (await platform.call(`/batch/_1000001/task/info/${summary.data.task_id}`, { host })).json()) as { data: { csv: string } };
      const link = new URL(info.data.csv);
      expect(link.host).toBe(`${host}:${port}`);
      // Nothing but the link: no access key, no other header; the Host is the link's own.
      const download = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: link.pathname + link.search, headers: { host: link.host } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(download.status, download.text).toBe(200);
      expect(download.text).toBe(urls);
    }
  });
});
