import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import fc from 'fast-check';
import tar from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { within } from '../../../test/support/time-bound.js';
import { BULK_LIMITS } from './bulk-limits.js';
import { boundedLines, BulkFileError, csvRows, jsonLines } from './bulk-rows.js';
import { openUploadStream } from './upload-stream.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bulk-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (content: Buffer) => {
  const p = path.join(dir, `f${n++}`);
  writeFileSync(p, content);
  return p;
};

async function drain<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/** Splits a buffer into chunks at the given cut points, as a stream would deliver it. */
const chunked = (bytes: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    parts.push(bytes.subarray(at, p));
    at = p;
  }
  parts.push(bytes.subarray(at));
  return Readable.from(parts.filter((p) => p.length));
};

const hostileText = fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', '\uFEFF', '{', '}', '[', ']', ':', ' ', 'é', '字'), maxLength: 3000 });

const member = zlib.gzipSync(Buffer.alloc(6 * 1024 * 1024, 0x61), { level: 9 });

describe('bulk file readers on hostile input', () => {
  it('CSV: rows or a BulkFileError, whatever the bytes and however they are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, fc.array(fc.nat(), { maxLength: 6 }), async (text, cuts) => {
        try {
          const rows = await within(drain(csvRows(chunked(Buffer.from(text), cuts))), 1_000, 'csvRows');
          for (const row of rows) expect(row.line).toBeGreaterThan(0);
        } catch (err) {
          if (!(err instanceof BulkFileError)) throw err;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('JSON lines: the same lines whatever the chunking; objects or a BulkFileError', async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, fc.array(fc.nat(), { maxLength: 6 }), async (text, cuts) => {
        const bytes = Buffer.from(text);
        const whole = await drain(boundedLines(Readable.from([bytes]), BULK_LIMITS.maxLineBytes));
        const pieces = await within(drain(boundedLines(chunked(bytes, cuts), BULK_LIMITS.maxLineBytes)), 1_000, 'boundedLines');
        expect(pieces).toEqual(whole);
        expect(whole.map((l) => l.text).join('\n')).toBe(text.endsWith('\n') ? text.slice(0, -1) : text);
        try {
          await within(drain(jsonLines(chunked(bytes, cuts))), 1_000, 'jsonLines');
        } catch (err) {
          if (!(err instanceof BulkFileError)) throw err;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a line or a record over the bound without reading the rest', async () => {
    const huge = () => Readable.from((function* () {
      for (let i = 0; i < 10_000; i++) yield Buffer.alloc(64 * 1024, 0x61);
    })());
    await expect(within(drain(jsonLines(huge())), 2_000)).rejects.toThrow(/at most 65536 bytes/);
    await expect(within(drain(csvRows(huge())), 2_000)).rejects.toThrow(BulkFileError);
    const quote = Readable.from([Buffer.from('"'), ...Array.from({ length: 100 }, () => Buffer.alloc(64 * 1024, 0x61))]);
    await expect(within(drain(csvRows(quote)), 2_000)).rejects.toThrow(BulkFileError);
  });

  it('refuses a gzip bomb (one 600 MB line) by its inflated size, with a 5001 reason, never hanging', async () => {
    // 100 gzip members of 6 MB of 'a' each (a valid gzip file): one 600 MB line from under 1 MB.
    const bomb = Buffer.concat(Array.from({ length: 100 }, () => member));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(within(openUploadStream(file(bomb)).then((s) => drain(jsonLines(s))), 60_000)).rejects.toThrow(BulkFileError);
    await expect(within(openUploadStream(file(bomb)).then((s) => drain(csvRows(s))), 60_000)).rejects.toThrow(BulkFileError);
    // Lines under the record bound: only the inflated-size bound can stop this one.
    const lines = zlib.gzipSync(Buffer.from(`${'a'.repeat(60 * 1024)}\n`.repeat(4_000)), { level: 9 });
    await expect(within(openUploadStream(file(lines)).then((s) => drain(csvRows(s))), 60_000)).rejects.toThrow(/inflates to more than|at most .* rows/);
  });

  it('applies the inflated-size bound inside a .tar.gz too', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'big.csv', size: 100 * 1024 * 1024 }, Buffer.alloc(100 * 1024 * 1024, 0x0a));
    pack.finalize();
    const gz = zlib.createGzip({ level: 9 });
    const chunks: Buffer[] = [];
    for await (const c of pack.pipe(gz) as AsyncIterable<Buffer>) chunks.push(c);
    await expect(within(openUploadStream(file(Buffer.concat(chunks))).then((s) => drain(csvRows(s))), 60_000)).rejects.toThrow(BulkFileError);
  });
});
