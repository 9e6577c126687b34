/**
 * Backup and restore (docs/backup.md, scripts/backup.ts): a platform whose regions keep their databases on a
 * native PostgreSQL 15 (pg_dump and pg_restore of the same major version, from Debian) gets a set with a search
 * service, pictures and a batch task; it is backed up (D1 export, pg_dump, the shared store), then restored into
 * a fresh platform (new data directory, new databases, D1 imported) with the same secrets. The same query gives
 * the same answer there, and the batch task's result link the same file.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGIONS, type RegionId } from '@iris/shared';
import { startImageServer, type ImageServer } from '../../region-backend/test/data-sets/image-server.js';
import { nativeServices, nativeSkipNote, startNativePostgres, type NativePostgres } from '../../region-backend/test/support/native-services.js';
import { waitUntil } from '../../region-backend/test/support/wait-for.js';
import { backup, restore, type Installation } from '../../scripts/backup.js';
import { startPlatformFixture, type PlatformFixture } from './platform-fixture.js';

const PICTURES = 8;
/** The local platform's secrets (internal secrets, admin token, D1 master key) and its development key. */
const SECRETS = ['secrets.json', 'dev-account.json'];

const status = nativeServices();
const note = nativeSkipNote(status);
if (note) console.warn(note);

/** The stored images of cn-east (writes in flight, in `.tmp`, left out). */
const blobFiles = (dataDir: string) =>
  readdirSync(path.join(dataDir, 'regions', 'cn-east', 'blobs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !path.relative(path.join(dataDir, 'regions', 'cn-east', 'blobs'), e.parentPath).startsWith('.tmp'))
    .map((e) => path.relative(path.join(dataDir, 'regions', 'cn-east', 'blobs'), path.join(e.parentPath, e.name)))
    .sort();

describe.runIf(status.available)('backup and restore into a fresh platform', () => {
  let postgres: NativePostgres;
  let images: ImageServer;
  let backupDir: string;
  /** The operator's secret store: the secrets are not part of a backup. */
  let secretStore: string;
  const platforms: PlatformFixture[] = [];

  beforeAll(async () => {
    if (!status.available) return;
    postgres = await startNativePostgres(status.services);
    images = await startImageServer();
    backupDir = mkdtempSync(path.join(os.tmpdir(), 'iris-backup-'));
    secretStore = mkdtempSync(path.join(os.tmpdir(), 'iris-secrets-'));
  }, 300_000);
  afterAll(async () => {
    for (const platform of platforms) await platform.stop();
    await images?.close();
    await postgres?.stop();
    for (const dir of [backupDir, secretStore]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A platform on new databases of the native server; `prepare` fills its data directory before it starts. */
  async function platformOn(name: string, prepare?: (dataDir: string, install: Installation) => Promise<void>): Promise<PlatformFixture> {
    if (!status.available) throw new Error('unreachable');
    const databases = {} as Record<RegionId, string>;
    for (const region of REGIONS) {
      const database = `${name}_${region.replace('-', '_')}`;
      await postgres.handle.ensureDatabase(database);
      databases[region] = postgres.handle.connectionString(database);
    }
    const platform = await startPlatformFixture({
      env: { DATABASE_URL_CN_EAST: databases['cn-east'], DATABASE_URL_AP_SOUTHEAST: databases['ap-southeast'] },
      ...(prepare ? { prepare: (dataDir: string) => prepare(dataDir, installation(dataDir, databases)) } : {}),
    });
    platforms.push(platform);
    return platform;
  }

  function installation(dataDir: string, databases: Record<RegionId, string>): Installation {
    if (!status.available) throw new Error('unreachable');
    const sharedDirs = Object.fromEntries(REGIONS.map((r) => [r, path.join(dataDir, 'regions', r)])) as Record<RegionId, string>;
    return { databases, sharedDirs, d1Persist: path.join(dataDir, 'wrangler'), pgBin: path.join(status.services.pgDir, 'bin') };
  }

  /**
   * A query, asked again while the answer is a retryable one, as a client would (a backend that just started loads
   * its models and index: 503/504; the edge's 502 while a backend is restarted by its supervisor).
   */
  const search = async (platform: PlatformFixture, serviceId: string, picture: Buffer) => {
    const ask = () => {
      const form = new FormData();
      form.append('search', new Blob([picture], { type: 'image/jpeg' }), 'q.jpg');
      form.append('count', '5');
      return platform.call(`/search/${serviceId}`, { method: 'POST', body: form });
    };
    const res = await waitUntil(ask, (r) => ![502, 503, 504].includes(r.status), 300_000);
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { results: { url: string; score: number; metadata: string }[] }).results;
  };
  const post = (platform: PlatformFixture, url: string, fields: Record<string, string>, files: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const [k, v] of Object.entries(files)) form.append(k, new Blob([v], { type: 'text/plain' }), `${k}.txt`);
    return platform.call(url, { method: 'POST', body: form });
  };

  it('answers the same query the same way after a restore', async () => {
    const source = await platformOn('source');
    const urls = Array.from({ length: PICTURES }, (_, i) => images.url(i, 'jpg'));
    const set = (await (await source.call('/image_sets/_0000014', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'kept' }) })).json()) as { id: string };
    const added = await post(source, `/image_sets/_0000014/${set.id}`, {}, { urls_to_add: urls.map((u, i) => `${u},m${i}`).join('\n') });
    expect(added.status, await added.clone().text()).toBe(200);
    const service = (await (await source.call(`/image_sets/_0000014/${set.id}/services`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'svc', scenario: 'general' }) })).json()) as { id: string };
    await waitUntil(
      async () => (await (await source.call(`/customer_services/_0000172/${service.id}`)).json()) as { n_indexed: number; n_first_pass_only: number },
      (s) => s.n_indexed === PICTURES && s.n_first_pass_only === 0,
      300_000,
    );
    const picture = Buffer.from(await (await fetch(urls[3]!)).arrayBuffer());
    const before = await search(source, service.id, picture);
    expect(before[0]).toMatchObject({ url: urls[3], metadata: 'm3' });

    const prepared = await post(source, '/batch/_1000001/task/prepare', { service_id: '_0000024' }, { urls: `${images.url(100, 'png')}\n${images.url(101, 'png')}` });
    const taskId = ((await prepared.json()) as { data: { task_id: string } }).data.task_id;
    expect((await post(source, '/batch/_1000001/task/apply', { task_id: taskId })).status).toBe(200);
    const task = await waitUntil(
      async () => ((await (await source.call(`/batch/_1000001/task/info/${taskId}`)).json()) as { data: { state: string; download_urls?: string[] } }).data,
      (t) => ['SUCCESS', 'FAILURE'].includes(t.state),
      300_000,
    );
    expect(task.state).toBe('SUCCESS');
    const link = new URL(task.download_urls![0]!);
    const results = await (await source.call(link.pathname + link.search)).text();
    expect(results.trim().split('\n')).toHaveLength(2);

    // Backed up while the platform runs.
    const files = await backup(installation(source.dataDir, source.databaseUrls), backupDir);
    expect(files).toEqual(['d1.sql', 'postgres-ap-southeast.dump', 'postgres-cn-east.dump', 'shared-ap-southeast.tar', 'shared-cn-east.tar']);
    const blobs = blobFiles(source.dataDir);
    expect(blobs.length).toBeGreaterThanOrEqual(PICTURES);
    for (const file of SECRETS) copyFileSync(path.join(source.dataDir, file), path.join(secretStore, file));
    await source.stop();
    platforms.splice(platforms.indexOf(source), 1);

    // A fresh platform: its databases, shared stores and D1 restored before it first starts, with the secrets of
    // the installation (kept by the operator, not in the backup).
    const restored = await platformOn('restored', async (dataDir, install) => {
      for (const file of SECRETS) copyFileSync(path.join(secretStore, file), path.join(dataDir, file));
      await restore(install, backupDir);
    });
    expect(blobFiles(restored.dataDir)).toEqual(blobs);
    expect(existsSync(path.join(restored.dataDir, 'regions', 'cn-east', 'indexes', service.id))).toBe(false);
    const info = (await (await restored.call(`/customer_services/_0000172/${service.id}`)).json()) as { n_indexed: number };
    expect(info.n_indexed).toBe(PICTURES);
    expect(await search(restored, service.id, picture)).toEqual(before);
    expect(await (await restored.call(link.pathname + link.search)).text()).toBe(results);
  }, 900_000);
});
