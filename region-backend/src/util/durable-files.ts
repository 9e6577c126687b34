/**
 * fsync helpers: a file's bytes, and a directory's entries (renames, creations), are on disk before the
 * state that refers to them is committed, so a power loss never leaves committed state pointing at nothing.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function fsyncDirectory(dir: string): Promise<void> {
  // Not every platform can fsync a directory, which only weakens durability there.
  const handle = await open(dir, constants.O_RDONLY).catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // ignored, see above
  } finally {
    await handle.close();
  }
}
