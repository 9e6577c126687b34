import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { BulkFileError, csvRows, jsonLines } from './bulk-rows.js';
import { setStatus } from './set-view.js';
import { openUploadStream } from './upload-stream.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bulk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function file(content: Buffer | string): string {
  const p = path.join(dir, `f${fileNo++}`);
  writeFileSync(p, content);
  return p;
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function tarGz(entries: { name: string; content?: string; type?: 'directory' }[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries) pack.entry({ name: e.name, ...(e.type ? { type: e.type } : {}) }, e.content ?? '');
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  return zlib.gzipSync(Buffer.concat(chunks));
}

describe('CSV rows', () => {
  it('handles a BOM, mixed line endings, quoted commas, doubled quotes and line breaks, with line numbers', async () => {
    const text = '\uFEFFa,b\r\n\r\n"x,\ny",z\nq"w,e\r"last ""one""",3';
    const rows = await collect(csvRows(Readable.from([Buffer.from(text)])));
    expect(rows).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 4, cells: ['x,\ny', 'z'] },
      { line: 5, cells: ['q"w', 'e'] },
      { line: 6, cells: ['last "one"', '3'] },
    ]);
  });

  it('streams a large input chunk by chunk (multi-byte characters split across chunks)', async () => {
    const line = 'https://example.com/图片.jpg,描述,标签|二\n';
    const bytes = Buffer.from(line.repeat(20_000));
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 4093) chunks.push(bytes.subarray(i, i + 4093));
    let count = 0;
    for await (const row of csvRows(Readable.from(chunks))) {
      expect(row.cells).toEqual(['https://example.com/图片.jpg', '描述', '标签|二']);
      count++;
    }
    expect(count).toBe(20_000);
  });

  it('refuses an unterminated quote with the line', async () => {
    const err = await collect(csvRows(Readable.from([Buffer.from('a,b\n"open,1\nc,d\n')]))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BulkFileError);
    expect((err as Error).message).toMatch(/^line \d+: invalid CSV/);
  });
});

describe('JSON lines', () => {
  it('reads objects, skips blank lines and names the bad line', async () => {
    const rows = await collect(jsonLines(Readable.from([Buffer.from('\uFEFF{"a":1}\r\n\n  {"b":"二"}\n')])));
    expect(rows).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { b: '二' } },
    ]);
    for (const [text, line] of [
      ['{"a":1}\n{"a":', 2],
      ['{"a":1}\n[1,2]', 2],
      ['"text"', 1],
    ] as const) {
      const err = await collect(jsonLines(Readable.from([Buffer.from(text)]))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BulkFileError);
      expect((err as BulkFileError).line).toBe(line);
    }
  });
});

describe('upload stream', () => {
  const read = async (p: string) => Buffer.concat(await collect((await openUploadStream(p)) as AsyncIterable<Buffer>)).toString('utf8');

  it('reads plain, gzip and tar.gz content whatever the file is called', async () => {
    expect(await read(file('plain,text\n'))).toBe('plain,text\n');
    expect(await read(file(zlib.gzipSync('gzipped\n')))).toBe('gzipped\n');
    const archive = await tarGz([
      { name: 'folder', type: 'directory' },
      { name: 'folder/._list.csv', content: 'resource fork' },
      { name: 'folder/list.csv', content: 'from,tar\n'.repeat(10_000) },
      { name: 'second.csv', content: 'ignored' },
    ]);
    expect(await read(file(archive))).toBe('from,tar\n'.repeat(10_000));
  });

  it('refuses a corrupt gzip file and an empty archive', async () => {
    const corrupt = zlib.gzipSync('x'.repeat(100_000)).subarray(0, 40);
    const err = await read(file(Buffer.concat([corrupt, Buffer.from('garbage-that-is-not-deflate')]))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const empty = await tarGz([{ name: 'only-a-folder', type: 'directory' }]);
    await expect(read(file(empty))).rejects.toThrow(/no file/);
  });
});

describe('set status', () => {
  it('follows the state table', () => {
    expect(setStatus({ n_items: 0, n_downloaded: 0, n_failed: 0 })).toBe('not-downloaded');
    expect(setStatus({ n_items: 3, n_downloaded: 0, n_failed: 1 })).toBe('not-downloaded');
    expect(setStatus({ n_items: 3, n_downloaded: 1, n_failed: 0 })).toBe('downloading');
    expect(setStatus({ n_items: 3, n_downloaded: 2, n_failed: 1 })).toBe('downloaded');
    expect(setStatus({ n_items: 2, n_downloaded: 0, n_failed: 2 })).toBe('downloaded');
  });
});
