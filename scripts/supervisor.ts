/**
 * One supervised child of `npm start`: started and waited for until ready, restarted with a back-off when it
 * exits on its own, stopped with SIGTERM and killed (SIGKILL) when it does not exit within a grace period.
 * Keeps the tail of its output so that a failure can be reported in one line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { StartupError } from '../region-backend/src/util/startup-error.js';

export interface SupervisedOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Resolves once the child serves; called again after each restart. */
  ready: (child: ChildProcess) => Promise<void>;
  /** Child output goes to this process's stdout/stderr ('inherit') or to `<logsDir>/<name>.log` ('logs'). */
  stdio: 'inherit' | 'logs';
  logsDir: string;
  log: (message: string) => void;
  /** Time a child gets to exit after SIGTERM before SIGKILL. */
  graceMs: number;
  /** First restart delay; doubles on each exit in a row, up to maxBackoffMs; reset after a minute of running. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

const TAIL_LINES = 30;

export class Supervised {
  #child: ChildProcess | undefined;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #backoffMs: number;
  #startedAt = 0;
  #tail: string[] = [];
  #logFile: WriteStream | undefined;
  restarts = 0;

  constructor(private readonly options: SupervisedOptions) {
    this.#backoffMs = options.backoffMs ?? 1000;
    if (options.stdio === 'logs') {
      mkdirSync(options.logsDir, { recursive: true });
      this.#logFile = createWriteStream(path.join(options.logsDir, `${options.name}.log`), { flags: 'a' });
    }
  }

  get name(): string {
    return this.options.name;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last meaningful line the child printed (for one-line failure messages). */
  lastLine(): string | undefined {
    return this.#tail.filter((l) => !/^\s*at /.test(l)).slice(-1)[0];
  }

  /** Starts the child and waits until it is ready; a child that exits first fails with its last line. */
  async start(): Promise<void> {
    this.#stopping = false;
    // Its own process group, so that a stop reaches what it started too (wrangler's workerd).
    const child = spawn(this.options.command, this.options.args, { cwd: this.options.cwd, env: this.options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.#child = child;
    this.#startedAt = Date.now();
    const forward = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
      if (this.#logFile) this.#logFile.write(chunk);
      else target.write(chunk);
      this.#tail.push(...chunk.toString('utf8').split('\n').filter((l) => l.trim()));
      this.#tail.splice(0, Math.max(0, this.#tail.length - TAIL_LINES));
    };
    child.stdout!.on('data', forward(process.stdout));
    child.stderr!.on('data', forward(process.stderr));
    const spawnError = new Promise<never>((_, reject) => child.once('error', (err) => reject(new StartupError(`${this.options.name} could not be started (${err.message}): run \`npm install\` first`))));
    spawnError.catch(() => {});
    // Watched from the start: an exit before ready fails the start (ready() sees it), one after is restarted.
    let isReady = false;
    child.once('exit', (code, signal) => isReady && this.#exited(child, code, signal));
    await Promise.race([this.options.ready(child), spawnError]);
    isReady = true;
    if (child.exitCode !== null || child.signalCode !== null) this.#exited(child, child.exitCode, child.signalCode);
  }

  #exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping || this.#child !== child) return;
    if (Date.now() - this.#startedAt > 60_000) this.#backoffMs = this.options.backoffMs ?? 1000;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.options.maxBackoffMs ?? 30_000);
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    this.options.log(`${this.options.name} ${how}${this.lastLine() ? ` (last output: ${this.lastLine()})` : ''}; restarting in ${delay / 1000} s`);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (this.#stopping) return;
      this.restarts++;
      this.start().then(
        () => this.options.log(`${this.options.name} restarted`),
        async (err: Error) => {
          this.options.log(`${this.options.name} did not restart: ${err.message}`);
          // Try again later (start() failed before its exit handler was attached); a hung child goes first.
          const failed = this.#child;
          if (!failed || this.#stopping) return;
          if (failed.exitCode === null && failed.signalCode === null) {
            const gone = new Promise((resolve) => failed.once('exit', resolve));
            signalGroup(failed, 'SIGKILL');
            await gone;
          }
          this.#exited(failed, failed.exitCode, failed.signalCode);
        },
      );
    }, delay);
  }

  /** Stops the child: SIGTERM (or `signal`), then SIGKILL after the grace period. No restart follows. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.#stopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      signalGroup(child, signal);
      const kill = setTimeout(() => {
        this.options.log(`${this.options.name} did not stop within ${this.options.graceMs / 1000} s; killing it`);
        signalGroup(child, 'SIGKILL');
      }, this.options.graceMs);
      await exited;
      clearTimeout(kill);
    }
  }

  /** Closes the log file (after stop). */
  close(): void {
    this.#logFile?.end();
  }
}

/** Signals the child's process group (the child and what it started), or the child alone if that fails. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
