/**
 * Upload folders (`tmp/upload-<pid>-*`) are removed when their request ends; a process killed mid-request
 * leaves them behind. At boot, folders of processes that no longer run are removed (several processes may
 * share a data directory, so a live process's folders stay), and any folder older than a day.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '../util/process-alive.js';

const MAX_AGE_MS = 24 * 3600_000;

export async function sweepUploadDirs(tmpDir: string, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(tmpDir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = /^upload-(\d+)-/.exec(name) ?? (/^upload-/.test(name) ? [name, '0'] : null);
    if (!match) continue;
    const pid = Number(match[1]);
    const file = path.join(tmpDir, name);
    const info = await stat(file).catch(() => null);
    if (!info) continue;
    if (pid === process.pid && now - info.mtimeMs < MAX_AGE_MS) continue;
    if (pid !== process.pid && processAlive(pid) && now - info.mtimeMs < MAX_AGE_MS) continue;
    await rm(file, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
