/**
 * The identity of a cache directory: a random token written once into `<dir>/.cache-id`. Processes that
 * share the directory (on one host or, over a network file system, on several) read the same token, so
 * a claim on the directory is keyed by it rather than by a path, which differs between hosts.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const FILE = '.cache-id';
const TOKEN = /^[0-9a-f-]{36}$/;

export async function cacheIdentity(dir: string): Promise<string> {
  const file = path.join(dir, FILE);
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (TOKEN.test(existing)) return existing;
  await mkdir(dir, { recursive: true });
  const token = randomUUID();
  const temp = path.join(dir, `${FILE}.${token}`);
  await writeFile(temp, `${token}\n`);
  try {
    // link() never replaces: of two processes creating it at once, one wins and both read its token. The
    // file is complete from the moment it exists.
    await link(temp, file);
    return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const theirs = (await readFile(file, 'utf8')).trim();
    if (TOKEN.test(theirs)) return theirs;
    await rename(temp, file); // a damaged file: replaced
    return token;
  } finally {
    await rm(temp, { force: true });
  }
}
