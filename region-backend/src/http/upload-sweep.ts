/**
 * Uploads in flight spill to `<tmp>/<instance id>/upload-*`, one folder per backend process, in the shared
 * store (so they rename into the blob store). A request's folder is removed when it is answered; a process
 * killed mid-request leaves its folder behind. Any process removes the folders of instances whose lease
 * (`instance:<id>` in PostgreSQL) has expired, upload folders older than a day in any instance's folder,
 * and anything else in `<tmp>` older than a day (folders of earlier versions, named by pid).
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

export const UPLOAD_MAX_AGE_MS = 24 * 3600_000;
const INSTANCE_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface SweepOptions {
  /** Whether the instance with this id still holds its lease. */
  isLive: (instanceId: string) => boolean;
  /** A dead instance's folder changed this recently is left for the next sweep (default: none). */
  graceMs?: number;
  now?: number;
}

/** Removes what the sweep above removes; returns how many folders (or files) it removed. */
export async function sweepUploadDirs(tmpDir: string, options: SweepOptions): Promise<number> {
  const now = options.now ?? Date.now();
  let removed = 0;
  for (const name of await list(tmpDir)) {
    const entry = path.join(tmpDir, name);
    const info = await stat(entry).catch(() => null);
    if (!info) continue;
    const age = now - info.mtimeMs;
    if (INSTANCE_DIR.test(name) && info.isDirectory()) {
      if (!options.isLive(name) && age >= (options.graceMs ?? 0)) {
        await rm(entry, { recursive: true, force: true });
        removed++;
      } else removed += await removeOlder(entry, now);
    } else if (age >= UPLOAD_MAX_AGE_MS) {
      await rm(entry, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** A live instance's upload folders older than the maximum age (a cleanup that failed). */
async function removeOlder(instanceDir: string, now: number): Promise<number> {
  let removed = 0;
  for (const name of await list(instanceDir)) {
    const entry = path.join(instanceDir, name);
    const info = await stat(entry).catch(() => null);
    if (info && now - info.mtimeMs >= UPLOAD_MAX_AGE_MS) {
      await rm(entry, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
