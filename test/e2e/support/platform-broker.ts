/**
 * One platform for the end-to-end files that only call it through the edge and the admin API (each with an
 * account of its own, see shared-platform.ts): started when the first of them asks, stopped when the run
 * ends. The files run in another process than this setup, so they ask over loopback HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startPlatformFixture, type PlatformFixture } from '../platform-fixture.js';

declare module 'vitest' {
  export interface ProvidedContext {
    platformBroker: string;
  }
}

/** What a file needs to reach the shared platform (no account: each file makes its own). */
export type SharedPlatformAddress = Pick<PlatformFixture, 'edgeUrl' | 'backendUrls' | 'databaseUrls' | 'internalSecrets' | 'adminToken' | 'dataDir'>;

/**
 * The settings its files need: usage flushed within a fraction of a second (free while nothing was counted),
 * short export pages, and a decode time limit that decoder traps reach sooner than the default (hostile-input).
 * Nothing that polls PostgreSQL more often than the defaults: the platform idles beside the other files' own.
 */
const SHARED_ENV = { IRIS_USAGE_FLUSH_SECONDS: '0.2', IRIS_EXPORT_PAGE_ROWS: '100', IRIS_DECODE_TIMEOUT_MS: '10000', IRIS_DECODE_THREADS: '2' };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let platform: Promise<PlatformFixture> | null = null;
  const server = http.createServer((_req, res) => {
    // A start that failed is answered to every file that asks, not tried again by each.
    platform ??= startPlatformFixture({ env: SHARED_ENV });
    platform.then(
      (p) => {
        const address: SharedPlatformAddress = { edgeUrl: p.edgeUrl, backendUrls: p.backendUrls, databaseUrls: p.databaseUrls, internalSecrets: p.internalSecrets, adminToken: p.adminToken, dataDir: p.dataDir };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(address));
      },
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.stack ?? String(err)),
    );
  });
  // A platform start takes longer than Node's default request timeout on a loaded machine.
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('platformBroker', `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return async () => {
    server.close();
    if (platform) await platform.then((p) => p.stop(), () => undefined);
  };
}
