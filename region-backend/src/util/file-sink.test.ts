import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileSink } from './file-sink.js';

const dir = mkdtempSync(path.join(tmpdir(), 'iris-file-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('FileSink', () => {
  it('writes chunks in order, waiting on a full buffer', async () => {
    const file = path.join(dir, 'whole.bin');
    const sink = new FileSink(file);
    for (let i = 0; i < 8; i++) await sink.write(Buffer.alloc(100_000, i));
    await sink.end();
    const bytes = readFileSync(file);
    expect(bytes.length).toBe(800_000);
    expect([bytes[0], bytes[150_000], bytes[799_999]]).toEqual([0, 1, 7]);
  });

  // A bare WriteStream destroyed during a write throws ERR_STREAM_DESTROYED at the process (the test run
  // reports it as an unhandled error); this is a client dropping its upload while a part is being spilled.
  it('fails the pending write, and nothing else, when destroyed with a write in flight', async () => {
    const sink = new FileSink(path.join(dir, 'dropped.bin'));
    await sink.write(Buffer.alloc(64 * 1024)); // over the buffer: waits until the file is open and written
    const pending = sink.write(Buffer.alloc(32 * 1024 * 1024, 1));
    sink.destroy();
    await expect(pending).rejects.toThrow();
    await expect(sink.write(Buffer.from('late'))).rejects.toThrow(/closed|destroyed/);
  });

  it('reports a full disk to the writer', async () => {
    const sink = new FileSink('/dev/full');
    const written = (async () => {
      for (let i = 0; i < 4; i++) await sink.write(Buffer.alloc(64 * 1024));
      await sink.end();
    })();
    await expect(written).rejects.toThrow(/ENOSPC/);
  });
});
