/**
 * Backup and restore of an Iris installation with the standard tools (docs/backup.md): the edge's D1 exported
 * with `wrangler d1 export`, each region's PostgreSQL database with `pg_dump --format=custom`, then each region's
 * shared store (blobs and batch files) with `tar`, blob collection paused meanwhile. Caches (index files, converted models) and uploads in flight
 * are left out: every process rebuilds them. Restore: `wrangler d1 execute --file`, `pg_restore` into an empty
 * database, `tar -x` into an empty shared store, before the restored installation first starts.
 *
 *   tsx scripts/backup.ts backup  <backup dir>
 *   tsx scripts/backup.ts restore <backup dir>
 *
 * Where things are (defaults: the local platform of `npm start`, `IRIS_DATA_DIR` = .iris):
 *   DATABASE_URL_CN_EAST, DATABASE_URL_AP_SOUTHEAST   the region databases (required: pg_dump of the server's
 *                                                    major version or newer; the embedded server ships none)
 *   IRIS_SHARED_DIR_CN_EAST, IRIS_SHARED_DIR_AP_SOUTHEAST   shared stores (default <IRIS_DATA_DIR>/regions/<region>)
 *   IRIS_D1_PERSIST     the local D1's `--persist-to` folder (default <IRIS_DATA_DIR>/wrangler)
 *   IRIS_PG_BIN         folder of pg_dump and pg_restore (default: found on PATH)
 * The secrets (INTERNAL_SECRET of each region, IRIS_LINK_SECRET, the edge's SECRETS_MASTER_KEY) are not in a
 * backup: keep them in your secret store; a restored installation must run with the same ones.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { REGIONS, type RegionId as Region } from '@iris/shared';
import { PAUSE_LEASE } from '../region-backend/src/domains/blob-gc/blob-collector.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const WRANGLER = path.join(ROOT, 'node_modules', '.bin', 'wrangler');
const D1_NAME = 'iris-edge';
const REGION_ENV: Record<Region, string> = { 'cn-east': 'CN_EAST', 'ap-southeast': 'AP_SOUTHEAST' };

export interface Installation {
  databases: Record<Region, string>;
  sharedDirs: Record<Region, string>;
  /** The local D1's persistence folder (`--persist-to` of the edge server and of `wrangler d1`). */
  d1Persist: string;
  /** Folder of pg_dump and pg_restore ('' : on PATH). */
  pgBin: string;
}

export function installationFromEnv(env: NodeJS.ProcessEnv = process.env): Installation {
  const dataDir = path.resolve(ROOT, env.IRIS_DATA_DIR ?? '.iris');
  const databases = {} as Record<Region, string>;
  const sharedDirs = {} as Record<Region, string>;
  for (const region of REGIONS) {
    const url = env[`DATABASE_URL_${REGION_ENV[region]}`];
    if (!url) throw new Error(`DATABASE_URL_${REGION_ENV[region]} is not set: give the URL of region ${region}'s database`);
    databases[region] = url;
    sharedDirs[region] = path.resolve(env[`IRIS_SHARED_DIR_${REGION_ENV[region]}`] ?? path.join(dataDir, 'regions', region));
  }
  return { databases, sharedDirs, d1Persist: path.resolve(env.IRIS_D1_PERSIST ?? path.join(dataDir, 'wrangler')), pgBin: env.IRIS_PG_BIN ?? '' };
}

function run(command: string, args: string[], options: { cwd?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} ${args[0]} failed (exit ${code}): ${stderr.trim()}`))));
  });
}

const pgTool = (install: Installation, name: string) => (install.pgBin ? path.join(install.pgBin, name) : name);

/**
 * `wrangler d1 export --local` reads the project's default state folder only (it has no --persist-to): it runs
 * in a scratch project whose `.wrangler/state` is the persistence folder.
 */
async function exportLocalD1(persist: string, output: string): Promise<void> {
  const project = mkdtempSync(path.join(os.tmpdir(), 'iris-d1-export-'));
  try {
    mkdirSync(path.join(project, '.wrangler'));
    symlinkSync(persist, path.join(project, '.wrangler', 'state'));
    copyFileSync(path.join(ROOT, 'wrangler.toml'), path.join(project, 'wrangler.toml'));
    await run(WRANGLER, ['d1', 'export', D1_NAME, '--local', '--output', output], { cwd: project });
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

/** Runs one statement on a region's database. */
async function sql(url: string, text: string, values: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

const PAUSE_HOURS = 6;

/**
 * D1 first, then each database, then each shared store (a record's blobs are copied after the record). Blob
 * collection is paused from before the dumps until the copies end (the lease `blob-gc-pause`, given back after,
 * expiring by itself should the backup die), so every blob a dump refers to is still there to be copied.
 */
export async function backup(install: Installation, outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  await exportLocalD1(install.d1Persist, path.join(outDir, 'd1.sql'));
  for (const region of REGIONS) {
    await sql(
      install.databases[region],
      `INSERT INTO leases (name, holder, expires_at) VALUES ($1, 'backup', now() + make_interval(hours => $2))
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`,
      [PAUSE_LEASE, PAUSE_HOURS],
    );
  }
  try {
    await dumpAndCopy(install, outDir);
  } finally {
    for (const region of REGIONS) await sql(install.databases[region], 'DELETE FROM leases WHERE name = $1', [PAUSE_LEASE]);
  }
  return readdirSync(outDir).sort();
}

async function dumpAndCopy(install: Installation, outDir: string): Promise<void> {
  for (const region of REGIONS) {
    // Leases (claims of running processes, the pause itself) mean nothing to a restored region.
    await run(pgTool(install, 'pg_dump'), ['--format=custom', '--no-owner', '--no-privileges', '--exclude-table-data=leases', `--file=${path.join(outDir, `postgres-${region}.dump`)}`, `--dbname=${install.databases[region]}`]);
  }
  for (const region of REGIONS) {
    const dir = install.sharedDirs[region];
    const members = ['blobs', 'batch'].filter((m) => existsSync(path.join(dir, m)));
    const file = `--file=${path.join(outDir, `shared-${region}.tar`)}`;
    // blobs/.tmp: blob writes in flight (renamed into place when complete).
    await run('tar', members.length ? ['--create', file, '--exclude=blobs/.tmp', `--directory=${dir}`, ...members] : ['--create', file, '--files-from=/dev/null']);
  }
}

/** Into empty databases, shared stores and D1, before the restored installation first starts. */
export async function restore(install: Installation, fromDir: string): Promise<void> {
  await run(WRANGLER, ['d1', 'execute', 'DB', '--local', '--persist-to', install.d1Persist, '--config', 'wrangler.toml', '--yes', `--file=${path.join(fromDir, 'd1.sql')}`]);
  for (const region of REGIONS) {
    await run(pgTool(install, 'pg_restore'), ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${install.databases[region]}`, path.join(fromDir, `postgres-${region}.dump`)]);
    mkdirSync(install.sharedDirs[region], { recursive: true });
    await run('tar', ['--extract', `--file=${path.join(fromDir, `shared-${region}.tar`)}`, `--directory=${install.sharedDirs[region]}`]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, dir] = process.argv.slice(2);
  if ((command !== 'backup' && command !== 'restore') || !dir) {
    console.error('usage: tsx scripts/backup.ts backup|restore <backup dir>   (docs/backup.md)');
    process.exit(2);
  }
  try {
    const install = installationFromEnv();
    if (command === 'backup') console.log((await backup(install, path.resolve(dir))).join('\n'));
    else await restore(install, path.resolve(dir));
  } catch (err) {
    console.error(`${command} failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
