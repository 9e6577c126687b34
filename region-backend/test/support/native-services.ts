/**
 * The native services of the pgvector and scale-out tests: a PostgreSQL 15 with pgvector 0.8 and HAProxy, installed
 * by scripts/native-services.sh (as root system-wide, otherwise unpacked under .cache/native/), and a throw-away
 * native PostgreSQL cluster in a temporary directory (run as the `postgres` user when this process is root, like
 * the embedded server: embedded-postgres.ts).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/db/embedded-postgres.js';

export interface NativeServices {
  /** PostgreSQL's directory holding bin/ (Debian: /usr/lib/postgresql/15). */
  pgDir: string;
  haproxy: string;
  /** Environment the binaries need (LD_LIBRARY_PATH of an unpacked tree), empty for a system install. */
  env: Record<string, string>;
}

export type NativeServicesStatus = { available: true; services: NativeServices } | { available: false; reason: string };

const SCRIPT = path.resolve(import.meta.dirname, '../../../scripts/native-services.sh');
let cached: NativeServicesStatus | undefined;

/** Installs the services when missing (minutes the first time, milliseconds after) and says where they are. */
export function nativeServices(): NativeServicesStatus {
  if (cached) return cached;
  let output: string;
  try {
    output = execFileSync('bash', [SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const line = `${e.stdout ?? ''}`.split('\n').find((l) => l.startsWith('native-services unavailable:'));
    cached = { available: false, reason: line?.replace('native-services unavailable: ', '') ?? `${SCRIPT} failed: ${(e.stderr || e.message).trim().split('\n').slice(-1)[0]}` };
    return cached;
  }
  const last = output.trim().split('\n').at(-1) ?? '';
  const field = (name: string) => new RegExp(`${name}=(\\S*)`).exec(last)?.[1] ?? '';
  const libs = field('ld_library_path');
  cached = {
    available: true,
    services: {
      pgDir: path.dirname(field('pg_bin')),
      haproxy: field('haproxy'),
      env: libs ? { LD_LIBRARY_PATH: [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') } : {},
    },
  };
  return cached;
}

/** The one line a test prints when it skips its native half. */
export function nativeSkipNote(status: NativeServicesStatus): string | null {
  return status.available ? null : `native PostgreSQL/pgvector/HAProxy tests skipped: ${status.reason}`;
}

export interface NativePostgres {
  /** postgres://… URL of the `postgres` database. */
  url: string;
  handle: EmbeddedPostgresHandle;
  stop(): Promise<void>;
}

/** Starts a native PostgreSQL on a free port in a fresh temporary cluster; stop() removes it. */
export async function startNativePostgres(services: NativeServices, options: { settings?: string[] } = {}): Promise<NativePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-native-pg-'));
  // Open to the `postgres` user (the server's user when running as root).
  chmodSync(dir, 0o755);
  const handle = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'data'),
    persistent: false,
    binaries: { dir: services.pgDir, version: 'native', env: services.env },
    settings: options.settings,
  });
  return {
    url: handle.connectionString('postgres'),
    handle,
    stop: async () => {
      await handle.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
