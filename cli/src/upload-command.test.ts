/** The pictures `iris sets upload` finds in a folder (a real folder on disk). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listPictures } from './upload-command.js';

describe('listPictures', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-cli-pictures-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds picture files at any depth by extension, named by their path relative to the folder, sorted', async () => {
    mkdirSync(path.join(dir, 'trip', 'day 2'), { recursive: true });
    for (const name of ['b.JPG', 'a.png', 'notes.txt', 'trip/c.webp', 'trip/day 2/d.jpeg', 'trip/raw.cr2', 'trip/.hidden.gif']) writeFileSync(path.join(dir, name), 'x');
    const found = await listPictures(dir);
    expect(found.map((p) => p.name)).toEqual(['a.png', 'b.JPG', 'trip/.hidden.gif', 'trip/c.webp', 'trip/day 2/d.jpeg']);
    expect(found[4]!.file).toBe(path.join(dir, 'trip', 'day 2', 'd.jpeg'));
  });
});
