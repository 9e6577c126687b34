/**
 * The supervisor of `npm start` (scripts/supervisor.ts) with real child processes: a child that exits is
 * restarted with a growing delay, a child that ignores SIGTERM is killed after the grace period, a child
 * that exits before it is ready fails the start with its last line.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Supervised } from '../../scripts/supervisor.js';

const logsDir = mkdtempSync(path.join(os.tmpdir(), 'iris-supervisor-'));
afterAll(() => rmSync(logsDir, { recursive: true, force: true }));

/** A supervised `node -e script`, ready once its last line is "ready". */
function node(name: string, script: string, log: string[], extra: Partial<ConstructorParameters<typeof Supervised>[0]> = {}): Supervised {
  const ready = async (child: ChildProcess) => {
    const deadline = Date.now() + 20_000;
    while (supervised.lastLine() !== 'ready') {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before it was ready`);
      if (Date.now() > deadline) throw new Error(`${name} not ready`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const supervised: Supervised = new Supervised({ name, command: process.execPath, args: ['-e', script], cwd: logsDir, env: process.env, ready, stdio: 'logs', logsDir, log: (m) => log.push(m), graceMs: 1000, backoffMs: 200, maxBackoffMs: 800, ...extra });
  return supervised;
}

const waitFor = async (what: string, check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('npm start supervisor', () => {
  it('restarts a child that exits, with a back-off that doubles', async () => {
    const log: string[] = [];
    // Ready at once, then dies after 100 ms: every run ends with exit code 3.
    const child = node('flaky', "console.log('ready'); setTimeout(() => process.exit(3), 100)", log);
    await child.start();
    const first = child.pid;
    await waitFor('three restarts', () => child.restarts >= 3);
    await child.stop();
    child.close();
    expect(child.pid).not.toBe(first);
    const delays = log.filter((l) => l.startsWith('flaky exited with code 3')).map((l) => Number(/restarting in ([\d.]+) s/.exec(l)![1]));
    expect(delays.slice(0, 3)).toEqual([0.2, 0.4, 0.8]);
    expect(log).toContain('flaky restarted');
  }, 60_000);

  it('kills a child that ignores SIGTERM after the grace period, and does not restart it', async () => {
    const log: string[] = [];
    const child = node('stubborn', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)", log);
    await child.start();
    const pid = child.pid!;
    const started = Date.now();
    await child.stop();
    const took = Date.now() - started;
    child.close();
    expect(took).toBeGreaterThanOrEqual(900);
    expect(log).toContain('stubborn did not stop within 1 s; killing it');
    expect(() => process.kill(pid, 0)).toThrow();
    await new Promise((r) => setTimeout(r, 500));
    expect(log.some((l) => l.includes('restarting'))).toBe(false);
  }, 60_000);

  it('fails a start in one line when the child exits before it is ready', async () => {
    const log: string[] = [];
    const child = node('broken', "console.error('iris backend cn-east: cannot start: port 127.0.0.1:1 is already in use'); process.exit(1)", log);
    await expect(child.start()).rejects.toThrow('broken exited before it was ready');
    expect(child.lastLine()).toBe('iris backend cn-east: cannot start: port 127.0.0.1:1 is already in use');
    child.close();
  }, 60_000);
});
