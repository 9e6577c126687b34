/**
 * A region grown by adding processes, as an operator runs it: cn-east served by `processes` backend processes on
 * one native PostgreSQL 15 with pgvector, each with its own cache directory (IRIS_CACHE_DIR) and the one shared
 * blob directory (IRIS_SHARED_DIR), behind Debian's HAProxy with health checks on `/readyz`; the whole platform
 * (edge, ap-southeast) around it, the edge forwarding cn-east to HAProxy. Used by the scale-out test and the
 * scale-out ingest bench.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../../region-backend/src/db/embedded-postgres.js';
import { startChildBackend, type ChildBackend } from '../../../region-backend/test/data-sets/child-backend.js';
import type { NativePostgres, NativeServices } from '../../../region-backend/test/support/native-services.js';
import { startPlatformFixture, type PlatformFixture } from '../platform-fixture.js';
import { startHaproxy, type Haproxy } from './haproxy.js';

export interface ScaleOutRegion {
  platform: PlatformFixture;
  haproxy: Haproxy;
  /** The cn-east processes, by index; `start(i)` replaces the one at `i` (after a kill). */
  backends: ChildBackend[];
  start(i: number): Promise<ChildBackend>;
  close(): Promise<void>;
}

export interface ScaleOutOptions {
  services: NativeServices;
  postgres: NativePostgres;
  /** A folder of this run: the shared blob directory and each process's cache go under it. */
  root: string;
  /** Names the run's databases and folders (two runs in one server must not share them). */
  name: string;
  store: 'hnsw' | 'pgvector';
  processes: number;
  /** Settings of the cn-east processes on top of the region's (inference threads, limits). */
  env?: Record<string, string>;
}

export async function startScaleOutRegion(options: ScaleOutOptions): Promise<ScaleOutRegion> {
  const { postgres, services, root, name, store } = options;
  const databases = { 'cn-east': `scale_${name}_cn_east`, 'ap-southeast': `scale_${name}_ap_southeast` };
  for (const db of Object.values(databases)) await postgres.handle.ensureDatabase(db);
  let proxyPort = 0;
  let platform: PlatformFixture | undefined;
  // A free port found may be taken by another program before it is bound (a shared machine): pick again.
  for (let attempt = 1; !platform; attempt++) {
    proxyPort = await freePort();
    platform = await startPlatformFixture({
      env: {
        DATABASE_URL_CN_EAST: postgres.handle.connectionString(databases['cn-east']),
        DATABASE_URL_AP_SOUTHEAST: postgres.handle.connectionString(databases['ap-southeast']),
      },
      externalBackends: { 'cn-east': `http://127.0.0.1:${proxyPort}` },
    }).catch((err: unknown) => {
      if (attempt < 3 && /already in use/.test(String(err))) return undefined;
      throw err;
    });
  }
  const region = platform;
  const shared = path.join(root, name, 'shared');
  const ports = await Promise.all(Array.from({ length: options.processes }, () => freePort()));
  const start = (i: number) => {
    const cache = path.join(root, name, `cache-${i}`);
    mkdirSync(cache, { recursive: true });
    return startChildBackend({
      databaseUrl: region.databaseUrls['cn-east'],
      dataDir: shared,
      port: ports[i],
      secret: region.internalSecrets['cn-east'],
      startTimeoutMs: 300_000,
      env: {
        IRIS_REGION: 'cn-east',
        IRIS_SHARED_DIR: shared,
        IRIS_CACHE_DIR: cache,
        IRIS_VECTOR_STORE: store,
        IRIS_PUBLIC_EDGE_URL: region.edgeUrl,
        IRIS_METRICS_PORT: 'off',
        ...options.env,
      },
    });
  };
  const started = await Promise.allSettled(ports.map((_, i) => start(i)));
  const backends = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  let haproxy: Haproxy | undefined;
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    haproxy = await startHaproxy({ binary: services.haproxy, env: services.env, port: proxyPort, servers: ports });
    // Every process warms its models before it is ready: the region starts serving with all of them.
    await haproxy.allServersUp(300_000);
  } catch (err) {
    await haproxy?.stop();
    for (const backend of backends) await backend.kill('SIGKILL');
    await region.stop();
    throw err;
  }
  const proxy = haproxy;
  return {
    platform: region,
    haproxy: proxy,
    backends,
    start,
    close: async () => {
      await proxy.stop();
      for (const backend of backends) await backend.kill('SIGKILL');
      await region.stop();
    },
  };
}
