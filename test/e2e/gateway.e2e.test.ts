import { createHmac } from 'node:crypto';
import http from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('the platform end to end: edge → backends → PostgreSQL', () => {
  let platform: PlatformFixture;
  let otherKey: string;
  let otherId: number;

  beforeAll(async () => {
    platform = await sharedPlatformFixture('gateway');
    const other = await platform.admin('POST', '/admin/accounts', { name: 'other' });
    otherId = Number(other.id);
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

  describe('answers exactly as the specification and the released clients expect', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const multipartOf = (fields: Record<string, string>, file?: { field: string; name: string; content: Buffer | string; type?: string }) => {
      const body = new FormData();
      for (const [key, value] of Object.entries(fields)) body.append(key, value);
      if (file) body.append(file.field, new Blob([file.content], { type: file.type ?? 'application/octet-stream' }), file.name);
      return body;
    };
    type Answer = Record<string, unknown> & { data?: Record<string, unknown> };
    const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as Answer });
    const withoutTimes = (body: Answer) => ({ ...body, request_id: undefined, time: undefined });

    it('colour by sub_type on /color/_0000072 answers as _0000072, _0000073 and _0000074 do', async () => {
      // A green square on a light background: the foreground palette is not the whole image's.
      const square = await sharp({ create: { width: 120, height: 120, channels: 3, background: { r: 30, g: 160, b: 60 } } }).png().toBuffer();
      const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 235, g: 235, b: 240 } } }).composite([{ input: square, left: 100, top: 60 }]).png().toBuffer();
      const colour = async (path: string, extra: Record<string, string> = {}) => {
        const res = await platform.call(path, { method: 'POST', body: multipartOf({ granularity: 'major', return_type: 'basic', ...extra }, { field: 'search', name: 'a.png', content: png, type: 'image/png' }) });
        const got = await answer(res);
        expect(got.status, JSON.stringify(got.body)).toBe(200);
        return withoutTimes(got.body);
      };
      const direct = { everything: await colour('/color/_0000072'), foreground: await colour('/color/_0000073'), person_outfit: await colour('/color/_0000074') };
      for (const [subType, expected] of Object.entries(direct)) expect(await colour('/color/_0000072', { sub_type: subType }), subType).toEqual(expected);
      expect(direct.foreground).not.toEqual(direct.everything);
      const bad = await answer(await platform.call('/color/_0000072', { method: 'POST', headers: form, body: 'sub_type=background&granularity=major&return_type=basic&url=http://127.0.0.1:9/a.png' }));
      expect(bad.status).toBe(400);
      expect(bad.body.data).not.toHaveProperty('error_code');
    });

    it('colour and fashion errors carry no error_code on 401, 403 and 404', async () => {
      await platform.admin('DELETE', `/admin/accounts/${otherId}/grants/_0000073`);
      const body = 'url=http://127.0.0.1:9/a.png&granularity=major&return_type=basic';
      const notGranted = await answer(await platform.call('/color/_0000073', { method: 'POST', headers: form, body, keyId: otherKey }));
      // Selected by sub_type, the service's grant is checked as the path's would be.
      const bySubType = await answer(await platform.call('/color/_0000072', { method: 'POST', headers: form, body: `${body}&sub_type=foreground`, keyId: otherKey }));
      const unknownKey = await answer(await platform.call('/dressing/_0000111', { method: 'POST', headers: form, body: 'url=x', keyId: 'no-such-key-0000' }));
      const otherRegion = await answer(await platform.call('/color/_0000074', { method: 'POST', headers: form, body, host: 'ap-southeast.localhost' }));
      for (const [name, got, status] of [['not granted', notGranted, 403], ['by sub_type', bySubType, 403], ['unknown key', unknownKey, 401]] as const) {
        expect(got.status, name).toBe(status);
        expect(got.body, name).toMatchObject({ status, data: { is_err: 1 } });
        expect(got.body.data, name).not.toHaveProperty('error_code');
      }
      expect(otherRegion.body.data ?? {}).not.toHaveProperty('error_code');
    });

    it('search services accept every scenario name released clients send', async () => {
      const set = (await (await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'scenarios' }) })).json()) as { id: string };
      for (const scenario of ['fashion_v5_4', 'furniture_v6', 'wine_v2_1']) {
        const created = await answer(await platform.call(`/image_sets/_0000014/${set.id}/services`, { method: 'POST', headers: json, body: JSON.stringify({ name: scenario, scenario }) }));
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        expect(created.body).toMatchObject({ scenario, status: 'running', n_indexed: 0 });
      }
      const unknown = await answer(await platform.call(`/image_sets/_0000014/${set.id}/services`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'x', scenario: 'wine_v9' }) }));
      expect([unknown.status, unknown.body.error_code]).toEqual([400, 2003]);
    });

    it('batch: lists only granted services, refuses another with a batch code, apply on a finished task is 400011, dates alone list tasks', async () => {
      await platform.admin('DELETE', `/admin/accounts/${otherId}/grants/_0000049`);
      const services = await answer(await platform.call('/batch/_1000001/services', { keyId: otherKey }));
      expect(services.body.data).toEqual(expect.arrayContaining(['_0000059', '_0000072']));
      expect(services.body.data).not.toContain('_0000049');
      expect(services.body.data).not.toContain('_0000073'); // revoked above
      const urls = { field: 'urls', name: 'urls.txt', content: 'http://127.0.0.1:9/a.jpg\nhttp://127.0.0.1:9/b.jpg\n' };
      const refused = await answer(await platform.call('/batch/_1000001/task/prepare', { method: 'POST', body: multipartOf({ service_id: '_0000049' }, urls), keyId: otherKey }));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ is_error: 1, data: { error_code: 400008 } });

      const prepared = await answer(await platform.call('/batch/_1000001/task/prepare', { method: 'POST', body: multipartOf({ service_id: '_0000059' }, urls) }));
      const taskId = String(prepared.body.data?.task_id);
      expect((await platform.call('/batch/_1000001/task/apply', { method: 'POST', headers: form, body: `task_id=${taskId}` })).status).toBe(200);
      // Both URLs fail to download: the task still ends (SUCCESS, with error lines).
      const state = async () => String((await answer(await platform.call(`/batch/_1000001/task/info/${taskId}`))).body.data?.state);
      await expect.poll(state, { timeout: 180_000, interval: 250 }).toMatch(/^(SUCCESS|FAILURE)$/);
      const again = await answer(await platform.call('/batch/_1000001/task/apply', { method: 'POST', headers: form, body: `task_id=${taskId}` }));
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ is_error: 1, data: { error_code: 400011 } });

      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const listed = await answer(await platform.call(`/batch/_1000001/tasks?start=${today}&end=${tomorrow}`));
      expect(listed.status).toBe(200);
      expect(Object.keys(listed.body.data ?? {})).toContain(taskId);
      expect((await answer(await platform.call('/batch/_1000001/tasks?start=2017-13-01'))).status).toBe(400);
    });

    it('sets: no name at the quota is 5004, a long name is truncated to 16, a header row is refused', async () => {
      await platform.admin('PUT', `/admin/accounts/${otherId}/quotas`, { image_sets: 1 });
      const first = await answer(await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: `  ${'长'.repeat(20)}${'n'.repeat(2000)}` }), keyId: otherKey }));
      expect(first.status).toBe(200);
      expect(first.body.name).toBe('长'.repeat(16));
      const unnamed = await answer(await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ description: 'd' }), keyId: otherKey }));
      expect([unnamed.status, unnamed.body.error_code]).toEqual([400, 5004]);
      const over = await answer(await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'over' }), keyId: otherKey }));
      expect([over.status, over.body.error_code]).toEqual([403, 3003]);

      const header = { field: 'urls_to_add', name: 'urls.csv', content: 'url,meta,tags\nhttp://127.0.0.1:9/a.jpg,m,t\n' };
      const refused = await answer(await platform.call(`/image_sets/_0000014/${first.body.id}`, { method: 'POST', body: multipartOf({}, header), keyId: otherKey }));
      expect([refused.status, refused.body.error_code]).toEqual([400, 5001]);
      expect(String(refused.body.message)).toMatch(/line 1/);
    });

    it('signed calls: only nonces of 16 to 36 characters', async () => {
      const { key_id: keyId, secret } = platform.devAccount;
      const signed = async (nonce: string) => {
        const headers = { 'x-ca-accesskeyid': keyId, 'x-ca-version': '1', 'x-ca-timestamp': String(Math.floor(Date.now() / 1000)), 'x-ca-signaturenonce': nonce, requestmethod: 'GET' };
        // PROTOCOL.md: every signed header as key=value, sorted by byte order, joined with &; HMAC-SHA1, base64.
        const text = Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
        const signature = createHmac('sha1', secret).update(text).digest('base64');
        return answer(await platform.call('/get_image_sets/_0000014', { headers: { ...headers, 'x-ca-signature': signature } }));
      };
      for (const nonce of ['short-nonce', 'n'.repeat(37)]) expect(await signed(nonce), nonce).toMatchObject({ status: 401, body: { error_code: 1104 } });
      expect((await signed(crypto.randomUUID())).status).toBe(200);
    });
  });
});
