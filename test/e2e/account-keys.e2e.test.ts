/**
 * Keys an account manages itself and the audit log, through the edge under wrangler dev with the real
 * backends: scopes refused in each path family's shape, a rotation whose old key stops at the end of its
 * overlap, a set deleted and found in the audit log; then the console's Keys and Audit pages in a real
 * browser (create with the secret shown once, disable, rotate, delete, read the log).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { formatTime } from '@iris/shared';
import { waitUntil } from '../../region-backend/test/support/wait-for.js';
import { launchBrowser, type Browser } from './browser.js';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

interface KeyAnswer {
  key_ref: string;
  key_id?: string;
  secret?: string;
  scopes: string[] | null;
  enabled: boolean;
}
interface AuditAnswer {
  results: { key_ref: string | null; method: string; path: string; target_id: string | null; request_id: string; outcome: string; actor: string }[];
  next_cursor: string | null;
}

describe('access keys and the audit log through the edge', () => {
  let platform: PlatformFixture;
  let browser: Browser;
  let page: Page;
  const json = { 'content-type': 'application/json' };
  const body = async <T>(res: Response) => (await res.json()) as T;

  beforeAll(async () => {
    [platform, browser] = await Promise.all([sharedPlatformFixture('account-keys'), launchBrowser()]);
    page = await browser.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('refuses calls outside a key scopes in each family shape; rotation keeps the old key until its overlap ends', async () => {
    const created = await body<KeyAnswer>(await platform.call('/iris/keys', { method: 'POST', headers: json, body: JSON.stringify({ name: 'searcher', scopes: ['search'] }) }));
    const keyId = created.key_id!;
    const listing = await platform.call('/get_image_sets/_0000014', { keyId });
    expect(listing.status).toBe(403);
    expect(await listing.json()).toMatchObject({ error_code: 1113 });
    const detect = await platform.call('/detect/_0000049', { method: 'POST', keyId, headers: json, body: JSON.stringify({ url: 'https://example.com/a.jpg' }) });
    expect(await detect.json()).toMatchObject({ status: 403, data: { is_err: 1, error_code: 1113 } });
    expect(await (await platform.call('/batch/_1000001/tasks', { keyId })).json()).toMatchObject({ is_error: 1, data: { error_code: 1113 } });
    expect((await platform.call('/iris/keys', { keyId })).status).toBe(403);

    const rotated = await body<{ key: KeyAnswer; previous: KeyAnswer }>(
      await platform.call(`/iris/keys/${created.key_ref}/rotate`, { method: 'POST', headers: json, body: JSON.stringify({ old_key_valid_until: formatTime(Date.now() + 2000) }) }),
    );
    expect(rotated.key.scopes).toEqual(['search']);
    const newKey = rotated.key.key_id!;
    // The old key stops by itself at the end of the overlap (checked on every call, cached or not).
    const ended = await waitUntil(async () => (await platform.call('/search/none', { method: 'POST', keyId, headers: json, body: '{}' })).status, (s) => s === 403, 30_000);
    expect(ended).toBe(403);
    expect((await platform.call('/get_image_sets/_0000014', { keyId: newKey })).status).toBe(403);
  });

  it('records a set deleted through the edge in the account audit log, and the operator sees it', async () => {
    const set = await body<{ id: string }>(await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'to delete' }) }));
    const deleted = await platform.call(`/image_sets/_0000014/${set.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    // The specification's other delete: an image-set POST without a body.
    const second = await body<{ id: string }>(await platform.call('/image_sets/_0000014', { method: 'POST', headers: json, body: JSON.stringify({ name: 'posted away' }) }));
    const posted = await platform.call(`/image_sets/_0000014/${second.id}`, { method: 'POST' });
    expect(posted.status).toBe(204);
    const log = await body<AuditAnswer>(await platform.call('/iris/audit?limit=5'));
    expect(log.results[0]).toMatchObject({ method: 'POST', target_id: second.id, request_id: posted.headers.get('x-request-id'), outcome: 'ok' });
    expect(log.results[1]).toMatchObject({ method: 'DELETE', target_id: set.id, request_id: deleted.headers.get('x-request-id'), outcome: 'ok', actor: 'key' });
    const operator = (await platform.admin('GET', `/admin/audit?account_id=${platform.devAccount.account_id}&limit=5`)) as unknown as AuditAnswer;
    expect(operator.results.map((e) => e.request_id).slice(0, 2)).toEqual([posted.headers.get('x-request-id'), deleted.headers.get('x-request-id')]);
  });

  it('the console Keys page creates a key (secret shown once), disables, rotates and deletes it; the Audit page lists the changes', async () => {
    await page.goto(`${platform.edgeUrl}/console/#/keys`);
    await page.getByLabel('Access key ID').fill(platform.devAccount.key_id);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor();
    await page.locator('input[name="key-name"]').fill('browser key');
    await page.locator('input[name="scope-read"]').check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const keyId = (await page.getByTestId('new-key-id').textContent())!;
    expect((await page.getByTestId('new-secret').textContent())!.length).toBeGreaterThan(20);
    expect((await platform.call('/get_image_sets/_0000014', { keyId })).status).toBe(200);
    expect((await platform.call('/image_sets/_0000014', { method: 'POST', keyId, headers: json, body: JSON.stringify({ name: 'no' }) })).status).toBe(403);

    const listed = await body<{ results: (KeyAnswer & { name: string })[] }>(await platform.call('/iris/keys'));
    const ref = listed.results.find((k) => k.name === 'browser key')!.key_ref;
    const row = page.locator(`tr[data-key-ref="${ref}"]`);
    await row.waitFor();
    // After a reload the secret is gone for good.
    await page.reload();
    await row.waitFor();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(keyId);

    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    expect(await (await platform.call('/get_image_sets/_0000014', { keyId })).json()).toMatchObject({ error_code: 1103 });

    await row.getByRole('button', { name: 'Rotate' }).click();
    await page.getByTestId('new-key-id').waitFor();
    const rotatedId = (await page.getByTestId('new-key-id').textContent())!;
    expect(rotatedId).not.toBe(keyId);
    expect((await platform.call('/get_image_sets/_0000014', { keyId: rotatedId })).status).toBe(200);

    await row.getByRole('button', { name: 'Delete' }).click();
    await waitUntil(() => row.count(), (n) => n === 0, 30_000);
    expect(await (await platform.call(`/iris/keys/${ref}`)).json()).toMatchObject({ error_code: 1108 });

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    const text = await page.locator('tbody').textContent();
    expect(text).toContain(`/iris/keys/${ref}`);
    expect(text).toContain(`/iris/keys/${ref}/disable`);
    expect(text).toContain(`/iris/keys/${ref}/rotate`);
    expect(text).not.toContain(keyId);
  });
});
