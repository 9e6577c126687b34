/**
 * The soak's platform: the whole of it (edge under workerd, both region backends, embedded PostgreSQL) on free
 * ports in a temporary folder, a loopback server of generated JPEGs, and the accounts made through the admin
 * API: three that send the traffic (one in each region's address, one signing every call) and one that only
 * makes the ordinary calls whose latency is compared. Each traffic account gets an image set with a search
 * service over it, indexed before the traffic starts.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiClient } from '@iris/shared/client';
import { freePort } from '../../region-backend/src/db/embedded-postgres.js';
import { startImageServer, type ImageServer } from '../../region-backend/test/support/image-server.js';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import { startPlatform, type Platform } from '../../scripts/platform.js';
import { callEdge, type CallRequest, type CallResult, type SoakKey } from './edge-caller.js';

export interface SoakAccount {
  name: string;
  key: SoakKey;
  /** Host header of the account's region; undefined: the edge's own address (cn-east). */
  host: string | undefined;
  imageSetId: string;
  serviceId: string;
}

export interface SoakPlatform {
  platform: Platform;
  dataDir: string;
  images: ImageServer;
  /** Generated photos the image server serves and the uploads send. */
  photos: Buffer[];
  accounts: SoakAccount[];
  probe: SoakAccount;
  call(account: SoakAccount, request: Omit<CallRequest, 'key' | 'host'>): Promise<CallResult>;
  stop(): Promise<void>;
}

const PHOTOS = 16;
/** Records in each account's set before the traffic starts. */
const SEED_RECORDS = 12;
const INDEX_DEADLINE_MS = 15 * 60_000;

async function expectOk(what: string, result: CallResult): Promise<Record<string, unknown>> {
  if (result.status < 200 || result.status >= 300) throw new Error(`${what} answered ${result.status}: ${result.body.slice(0, 300)}`);
  return JSON.parse(result.body) as Record<string, unknown>;
}

async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + INDEX_DEADLINE_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${INDEX_DEADLINE_MS / 60_000} minutes (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export async function startSoakPlatform(log: (line: string) => void): Promise<SoakPlatform> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-soak-'));
  // Open to the `postgres` user (the server's user when run as root), so its data stays in this folder.
  chmodSync(dataDir, 0o755);
  const platform = await startPlatform({
    dataDir,
    edgePort: await freePort(),
    backendPorts: { 'cn-east': await freePort(), 'ap-southeast': await freePort() },
    allowPrivateUrls: true,
    stdio: 'logs',
    env: { LOG_LEVEL: 'warn' },
    log,
  });
  const images = await startImageServer();
  const photos = await Promise.all(Array.from({ length: PHOTOS }, (_, i) => photoJpeg(640, 480, i + 1)));
  photos.forEach((photo, i) => images.set(`/photo-${i}.jpg`, photo));
  const admin = createApiClient({ baseUrl: platform.edgeUrl, headers: () => ({ authorization: `Bearer ${platform.adminToken}` }) });
  const call = (account: SoakAccount, request: Omit<CallRequest, 'key' | 'host'>) => callEdge(platform.edgeUrl, { ...request, key: account.key, host: account.host });

  async function account(name: string, host: string | undefined, signs: boolean, withSet: boolean): Promise<SoakAccount> {
    const created = await admin.call('adminCreateAccount', { json: { name } });
    const id = String(created.id);
    const key = { key_id: `soak${randomBytes(8).toString('hex')}`, secret: randomBytes(20).toString('base64url') };
    await admin.call('adminEnsureKey', { params: { id }, json: { ...key, signature_required: signs } });
    // The soak makes more batch tasks than a day's default allows; the quota is not what it measures.
    await admin.call('adminPatchQuotas', { params: { id }, json: { daily_batch_tasks: 1_000_000 } });
    const soakAccount: SoakAccount = { name, key: { keyId: key.key_id, secret: key.secret, signs }, host, imageSetId: '', serviceId: '' };
    if (!withSet) return soakAccount;
    const set = await expectOk(`${name}: create image set`, await call(soakAccount, { method: 'POST', path: '/image_sets/_0000014', json: { name: `soak ${name}` } }));
    soakAccount.imageSetId = String(set.id);
    for (let i = 0; i < SEED_RECORDS; i++) {
      const form = { image_url: images.url(`/photo-${i % PHOTOS}.jpg?seed=${i}`), meta: `seed ${i}` };
      await expectOk(`${name}: add a URL`, await call(soakAccount, { method: 'POST', path: `/image_sets/_0000014/${soakAccount.imageSetId}`, form }));
    }
    const service = await expectOk(`${name}: create search service`, await call(soakAccount, { method: 'POST', path: `/image_sets/_0000014/${soakAccount.imageSetId}/services`, json: { name: 'soak', scenario: 'general' } }));
    soakAccount.serviceId = String(service.id);
    return soakAccount;
  }

  try {
    const accounts = [await account('a', undefined, false, true), await account('b', undefined, true, true), await account('c', 'ap-southeast.localhost', false, true)];
    const probe = await account('probe', undefined, false, false);
    for (const a of accounts) {
      log(`waiting for account ${a.name}'s search service to index its ${SEED_RECORDS} pictures`);
      await waitUntil(`account ${a.name}'s search service`, async () => {
        const listed = (await expectOk('list services', await call(a, { method: 'GET', path: '/customer_services/_0000172' }))) as { results: { id: string; n_indexed: number }[] };
        return listed.results.find((s) => s.id === a.serviceId)?.n_indexed ?? 0;
      }, (indexed) => indexed >= SEED_RECORDS);
    }
    return {
      platform, dataDir, images, photos, accounts, probe, call,
      stop: async () => {
        await images.close();
        await platform.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await images.close();
    await platform.stop();
    throw err;
  }
}
