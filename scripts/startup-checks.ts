/**
 * Checks `npm start` makes before it starts anything, so that a known problem fails in one line naming the
 * cause and the fix (another platform already running on the same data directory, a port already taken),
 * and the clean-up of what a crashed platform left running.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { StartupError, errorCode } from '../region-backend/src/util/startup-error.js';

/** A process's start time (clock ticks since boot, /proc/<pid>/stat field 22): tells a reused pid apart. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface ProcessMark {
  pid: number;
  started: string | null;
}

interface PlatformFile extends ProcessMark {
  children?: (ProcessMark & { name: string })[];
}

/** Whether the marked process still runs (same pid and same start time: not a reused pid). */
function running(mark: ProcessMark): boolean {
  if (!(mark.pid > 0) || !alive(mark.pid)) return false;
  const now = startTime(mark.pid);
  return mark.started === null || now === null || now === mark.started;
}

export interface DataDirClaim {
  /** Records the supervised children, so that a start after a crash of this process can stop them. */
  recordChildren(children: { name: string; pid: number | undefined }[]): void;
  release(): void;
}

/**
 * Marks `dataDir` as used by this process (`platform.pid`). A file left by a crash is taken over: children
 * of the crashed platform that still run (the supervisor was killed, they were not) are stopped first.
 */
export async function claimDataDir(dataDir: string, log: (message: string) => void): Promise<DataDirClaim> {
  const file = path.join(dataDir, 'platform.pid');
  let previous: PlatformFile | null = null;
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as PlatformFile;
  } catch {
    // none, or unreadable: nothing to take over
  }
  if (previous && previous.pid !== process.pid && running(previous)) {
    throw new StartupError(`another Iris platform (pid ${previous.pid}) is running on ${dataDir}: stop it first (Ctrl-C in its terminal, or kill ${previous.pid}), or give this one its own IRIS_DATA_DIR`);
  }
  const orphans = (previous?.children ?? []).filter(running);
  if (orphans.length) {
    log(`stopping ${orphans.map((c) => `${c.name} (pid ${c.pid})`).join(', ')} left running by a platform that crashed`);
    // Each child led its own process group (supervisor.ts): the group takes what it started with it.
    const signal = (pid: number, sig: NodeJS.Signals) => {
      try {
        process.kill(-pid, sig);
      } catch {
        process.kill(pid, sig);
      }
    };
    for (const orphan of orphans) signal(orphan.pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (orphans.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const orphan of orphans.filter(running)) signal(orphan.pid, 'SIGKILL');
  }
  const self: PlatformFile = { pid: process.pid, started: startTime(process.pid), children: [] };
  const write = () => writeFileSync(file, JSON.stringify(self));
  write();
  return {
    recordChildren(children) {
      self.children = children.filter((c) => c.pid !== undefined).map((c) => ({ name: c.name, pid: c.pid!, started: startTime(c.pid!) }));
      write();
    },
    release() {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as PlatformFile).pid === process.pid) rmSync(file, { force: true });
      } catch {
        // already gone
      }
    },
  };
}

function tryListen(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err) => resolve(errorCode(err) ?? 'EUNKNOWN'));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(null)));
  });
}

/** Fails unless every port can be listened on; a port still closing after a crash gets a few seconds. */
export async function checkPortsFree(ports: { port: number; variable: string; what: string }[], waitMs = 5000): Promise<void> {
  for (const { port, variable, what } of ports) {
    const deadline = Date.now() + waitMs;
    let code = await tryListen(port);
    while (code === 'EADDRINUSE' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      code = await tryListen(port);
    }
    if (code === 'EADDRINUSE') throw new StartupError(`port ${port} (${what}) is already in use on 127.0.0.1: stop the program holding it (\`ss -ltnp 'sport = :${port}'\` shows it) or set ${variable} to a free port`);
    if (code === 'EACCES') throw new StartupError(`not allowed to listen on port ${port} (${what}): set ${variable} to a port above 1023`);
    if (code) throw new StartupError(`cannot listen on 127.0.0.1:${port} (${what}, ${code}): set ${variable} to another port`);
  }
}
