import { mkdirSync, mkdtempSync, existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepUploadDirs } from './upload-sweep.js';

describe('sweepUploadDirs', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-sweep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('removes the folders of stopped processes and old ones, keeps live processes’ recent folders', async () => {
    const make = (name: string, ageMs = 0) => {
      const folder = path.join(dir, name);
      mkdirSync(folder);
      writeFileSync(path.join(folder, 'part-0'), 'x');
      const when = (Date.now() - ageMs) / 1000;
      utimesSync(folder, when, when);
      return folder;
    };
    const dead = make('upload-2147483646-abc');
    const legacy = make('upload-old');
    const mine = make(`upload-${process.pid}-def`);
    const parent = make(`upload-${process.ppid}-ghi`);
    const stale = make(`upload-${process.ppid}-jkl`, 25 * 3600_000);
    const other = make('keep-me');
    expect(await sweepUploadDirs(dir)).toBe(3);
    expect([dead, legacy, stale].map(existsSync)).toEqual([false, false, false]);
    expect([mine, parent, other].map(existsSync)).toEqual([true, true, true]);
    expect(await sweepUploadDirs(path.join(dir, 'missing'))).toBe(0);
  });
});
