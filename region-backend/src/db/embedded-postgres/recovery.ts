/**
 * What a crash leaves behind in a data directory, cleared before the next start:
 * - a PostgreSQL server (or some of its backend processes) still running on it, from a start whose Node
 *   process was killed: stopped (fast shutdown, then SIGQUIT/SIGKILL after a grace period);
 * - a stale `postmaster.pid` whose pid now belongs to another process (pids are reused quickly, above all in
 *   containers, and PostgreSQL then refuses to start): removed once no process runs on the directory.
 * Shared memory is left to PostgreSQL, which reuses a segment nobody is attached to; the server processes
 * that could still be attached are the ones stopped above. Processes are recognised by their working
 * directory, which PostgreSQL sets to the data directory (Linux /proc; elsewhere only the pid file is used).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pids of processes whose working directory is `dataDir` (the postmaster and its children). */
export function serverProcesses(dataDir: string): number[] {
  if (!existsSync('/proc/self/cwd')) return [];
  const real = realpathSync(dataDir);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === real) pids.push(Number(entry));
    } catch {
      // gone, or not ours to inspect
    }
  }
  return pids;
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

async function waitGone(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (pids.every((pid) => !alive(pid))) return true;
    await sleep(100);
  }
  return pids.every((pid) => !alive(pid));
}

/** The postmaster's pid from `postmaster.pid`, or null when there is no (readable) pid file. */
function pidFilePid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Stops whatever still runs on `dataDir` and removes a stale pid file. Returns a description of what was
 * cleared (for the log), or null when the directory was clean.
 */
export async function clearCrashLeftovers(dataDir: string, graceMs = 15_000): Promise<string | null> {
  const done: string[] = [];
  let running = serverProcesses(dataDir);
  if (running.length) {
    const postmaster = pidFilePid(dataDir);
    // Fast shutdown through the postmaster when it survived; its children follow it.
    signalAll(postmaster !== null && running.includes(postmaster) ? [postmaster] : running, 'SIGINT');
    if (!(await waitGone(running, graceMs))) {
      signalAll(serverProcesses(dataDir), 'SIGQUIT');
      if (!(await waitGone(running, 3000))) signalAll(serverProcesses(dataDir), 'SIGKILL');
      await waitGone(running, 3000);
    }
    done.push(`stopped ${running.length} PostgreSQL process(es) left running by an earlier start (pids ${running.join(', ')})`);
    running = serverProcesses(dataDir);
    if (running.length) throw new Error(`PostgreSQL processes ${running.join(', ')} still run on ${dataDir} and do not stop`);
  }
  const stalePid = pidFilePid(dataDir);
  if (stalePid !== null && existsSync('/proc/self/cwd')) {
    // Nothing runs on the directory (checked above): whatever holds that pid now is another process.
    rmSync(path.join(dataDir, 'postmaster.pid'), { force: true });
    done.push(`removed a stale postmaster.pid (pid ${stalePid}${alive(stalePid) ? ', now another process' : ', gone'})`);
  }
  return done.length ? done.join('; ') : null;
}
