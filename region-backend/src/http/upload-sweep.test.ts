import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepUploadDirs, UPLOAD_MAX_AGE_MS } from './upload-sweep.js';

describe('sweepUploadDirs', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-sweep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('removes the folders of instances whose lease expired and old folders, keeps live instances’ recent uploads', async () => {
    const make = (name: string, ageMs = 0) => {
      const folder = path.join(dir, name);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'part-0'), 'x');
      const when = (Date.now() - ageMs) / 1000;
      utimesSync(folder, when, when);
      return folder;
    };
    const [live, dead, starting] = [randomUUID(), randomUUID(), randomUUID()];
    const liveUpload = make(`${live}/upload-a`);
    const liveStale = make(`${live}/upload-b`, UPLOAD_MAX_AGE_MS + 60_000);
    make(dead, 120_000);
    make(`${dead}/upload-c`, 120_000);
    utimesSync(path.join(dir, dead), (Date.now() - 120_000) / 1000, (Date.now() - 120_000) / 1000);
    const deadRecent = make(starting);
    const legacyOld = make('upload-1234-old', UPLOAD_MAX_AGE_MS + 60_000);
    const legacyRecent = make('upload-1234-new');
    const isLive = (id: string) => id === live;
    expect(await sweepUploadDirs(dir, { isLive, graceMs: 60_000 })).toBe(3);
    expect([path.join(dir, dead), liveStale, legacyOld].map(existsSync)).toEqual([false, false, false]);
    expect([liveUpload, deadRecent, legacyRecent].map(existsSync)).toEqual([true, true, true]);
    expect(await sweepUploadDirs(path.join(dir, 'missing'), { isLive })).toBe(0);
  });
});
