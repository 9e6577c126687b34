/**
 * Where the embedded PostgreSQL binaries and data live, and as whom the server runs.
 *
 * PostgreSQL refuses to run as root. As root the server runs as the `postgres` system user, which must be able
 * to reach the binaries and the data directory — and a checkout under a mode-700 home (/root, most CI runners
 * and containers) is out of its reach. So, as root only: binaries that the `postgres` user cannot reach are
 * copied once to IRIS_EMBEDDED_PG_DIR (default /var/lib/iris-embedded-postgres), and a data directory it cannot
 * reach is created there and linked from the requested place (`.iris/postgres` → the real directory).
 * A normal user runs everything in place: it owns its checkout.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from '../../util/startup-error.js';

export interface ServerUser {
  uid: number;
  gid: number;
}

export interface Placement {
  /** `bin/` (initdb, postgres) and `lib/` of the PostgreSQL build. */
  nativeDir: string;
  /** The real data directory (a symlink at the requested place points to it when they differ). */
  dataDir: string;
  /** The user the server runs as: null when this process is not root (the server runs as this user). */
  user: ServerUser | null;
  /** Environment the binaries need (LD_LIBRARY_PATH of an unpacked build). */
  env?: Record<string, string>;
}

const require = createRequire(import.meta.url);

/** The platform package of `embedded-postgres` that holds the binaries (a dev dependency). */
function packagedNativeDir(): { dir: string; version: string } {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let root: string;
  try {
    // Its exports hide package.json: resolve the entry point (dist/index.js) and go up.
    root = path.dirname(path.dirname(require.resolve(name)));
  } catch {
    throw new StartupError(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${name} is not installed): run \`npm install\` (dev dependencies included), or set DATABASE_URL_CN_EAST and DATABASE_URL_AP_SOUTHEAST to an existing PostgreSQL`);
  }
  const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  return { dir: path.join(root, 'native'), version };
}

export function runtimeBase(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.IRIS_EMBEDDED_PG_DIR ?? '/var/lib/iris-embedded-postgres');
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The `postgres` system user, created (as embedded-postgres always did) when missing. */
function postgresUser(log: (line: string) => void): ServerUser {
  const lookup = (): ServerUser | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup();
  if (found) return found;
  log('creating the `postgres` system user (PostgreSQL refuses to run as root)');
  const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', 'postgres'], { encoding: 'utf8' });
  const created = lookup();
  if (!created) {
    throw new StartupError(`PostgreSQL refuses to run as root and no \`postgres\` user exists (useradd: ${(made.stderr || made.error?.message || 'failed').trim()}): create one with \`useradd --system --user-group postgres\`, or run npm start as a normal user`);
  }
  return created;
}

/** Whether `user` can enter (directory) or read (file) `target`: checked by the user itself, ACLs included. */
export function reachableBy(user: ServerUser, target: string): boolean {
  const result = spawnSync('/bin/sh', ['-c', '[ -d "$1" ] && cd "$1" || [ -r "$1" ]', 'sh', target], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return result.status === 0;
}

/** A copy of the binaries the server user can run: reused when complete, owned by root, not writable by others. */
function reachableNativeDir(user: ServerUser, packaged: { dir: string; version: string }, base: string, log: (line: string) => void): string {
  if (reachableBy(user, path.join(packaged.dir, 'bin', 'postgres'))) return packaged.dir;
  const target = path.join(base, `postgresql-${packaged.version}`);
  if (existsSync(path.join(target, 'bin', 'postgres'))) {
    const st = statSync(target);
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) throw new StartupError(`${target} is not owned by root or is writable by others; remove it (it is a copy of the PostgreSQL binaries) and start again`);
    return target;
  }
  log(`copying the PostgreSQL binaries to ${target} (the postgres user cannot reach ${packaged.dir})`);
  try {
    mkdirSync(base, { recursive: true, mode: 0o755 });
    const staging = `${target}.partial-${randomBytes(4).toString('hex')}`;
    cpSync(packaged.dir, staging, { recursive: true, verbatimSymlinks: true });
    renameSync(staging, target);
  } catch (err) {
    throw new StartupError(`cannot copy the PostgreSQL binaries to ${base} (${(err as Error).message}): set IRIS_EMBEDDED_PG_DIR to a directory root can write and the postgres user can enter`);
  }
  if (!reachableBy(user, path.join(target, 'bin', 'postgres'))) {
    throw new StartupError(`the postgres user cannot reach ${target}: set IRIS_EMBEDDED_PG_DIR to a directory every user can enter (e.g. /var/lib/iris-embedded-postgres)`);
  }
  return target;
}

/** The real data directory for `requested`, created with the right owner; see the module comment. */
function reachableDataDir(user: ServerUser, requested: string, base: string, log: (line: string) => void): string {
  const link = existsSync(requested) || isSymlink(requested) ? lstatSync(requested) : null;
  if (link?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(requested), readlinkSync(requested));
    mkdirSync(target, { recursive: true, mode: 0o700 });
    chownSync(target, user.uid, user.gid);
    return target;
  }
  if (link) {
    if (!reachableBy(user, requested)) {
      throw new StartupError(`the postgres user cannot enter ${requested} (data of an earlier run as another user): move it to ${path.join(base, 'data')}/<name>, owned by postgres, and leave a symlink at ${requested}, or run npm start as the user who owns it`);
    }
    chownSync(requested, user.uid, user.gid);
    return requested;
  }
  mkdirSync(path.dirname(requested), { recursive: true });
  if (reachableBy(user, path.dirname(requested))) {
    mkdirSync(requested, { mode: 0o700 });
    chownSync(requested, user.uid, user.gid);
    return requested;
  }
  // Named after the checkout (…/<checkout>/.iris/postgres), random so that a removed .iris starts afresh.
  const label = path.basename(path.dirname(path.dirname(requested))).replace(/[^\w.-]/g, '_') || 'iris';
  const target = path.join(base, 'data', `${label}-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    mkdirSync(target, { mode: 0o700 });
  } catch (err) {
    throw new StartupError(`cannot create the PostgreSQL data directory in ${base} (${(err as Error).message}): set IRIS_EMBEDDED_PG_DIR to a directory root can write and the postgres user can enter`);
  }
  chownSync(target, user.uid, user.gid);
  symlinkSync(target, requested);
  log(`PostgreSQL data in ${target} (linked from ${requested}: the postgres user cannot enter the checkout)`);
  return target;
}

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Another PostgreSQL build to run instead of the packaged one (e.g. a native PostgreSQL with pgvector). */
export interface Binaries {
  /** The directory holding `bin/` (Debian: /usr/lib/postgresql/15). */
  dir: string;
  /** Names its copy when the server user cannot reach it (see reachableNativeDir). */
  version: string;
}

export function placeEmbeddedPostgres(requestedDataDir: string, log: (line: string) => void, env: NodeJS.ProcessEnv = process.env, binaries?: Binaries): Placement {
  const packaged = binaries ?? packagedNativeDir();
  const requested = path.resolve(requestedDataDir);
  if (!isRoot()) {
    mkdirSync(requested, { recursive: true, mode: 0o700 });
    return { nativeDir: packaged.dir, dataDir: requested, user: null };
  }
  const user = postgresUser(log);
  const base = runtimeBase(env);
  return { nativeDir: reachableNativeDir(user, packaged, base, log), dataDir: reachableDataDir(user, requested, base, log), user };
}

/** Removes a data directory and, when it was placed elsewhere, the link at the requested place. */
export function removeDataDir(requested: string, real: string): void {
  rmSync(real, { recursive: true, force: true });
  if (path.resolve(requested) !== real) rmSync(requested, { force: true });
}
