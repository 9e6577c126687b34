/**
 * One writer per index directory: several processes may share a data directory; the first to claim
 * `indexes/.writer` saves index files, the others only read them. A crashed holder's claim is taken over.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '../../util/process-alive.js';

export class IndexWriterClaim {
  private readonly token = `${process.pid}:${randomBytes(8).toString('hex')}`;
  private readonly file: string;

  constructor(indexesDir: string) {
    this.file = path.join(indexesDir, '.writer');
  }

  /** Takes the directory unless a live process holds it. */
  async claim(): Promise<boolean> {
    await mkdir(path.dirname(this.file), { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(this.file, this.token, { flag: 'wx' });
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = (await readFile(this.file, 'utf8').catch(() => '')).trim();
      if (holder === this.token) return true;
      if (processAlive(Number(holder.split(':')[0]))) return false;
      await rm(this.file, { force: true });
    }
    return false;
  }

  async release(): Promise<void> {
    const holder = await readFile(this.file, 'utf8').catch(() => '');
    if (holder.trim() === this.token) await rm(this.file, { force: true });
  }
}
