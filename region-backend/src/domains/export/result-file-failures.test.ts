/** The latest error lines of result files, read from their ends: order, bounds, cut lines, missing files. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resultFileFailures } from './result-file-failures.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-result-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const result = (line: number) => JSON.stringify({ url: `http://x/${line}`, line, result: { note: '"error":{' } });
const error = (line: number, url = `http://x/${line}`) => JSON.stringify({ url, line, error: { error_code: 400004, message: `gone ${line}` } });

describe('latest failures of a finished task’s result files', () => {
  it('reads the newest file first, latest line first, up to the bound', async () => {
    writeFileSync(path.join(dir, 'result-0.jsonl'), [0, 1, 2, 3].map((n) => (n % 2 ? error(n) : result(n))).join('\n') + '\n');
    writeFileSync(path.join(dir, 'result-1.jsonl'), [4, 5, 6].map((n) => (n === 5 ? error(n, 'http://x/"error":{') : result(n))).join('\n') + '\n');
    const found = await resultFileFailures(dir, ['result-0.jsonl', 'result-1.jsonl'], 20, 10_000);
    expect(found.map((f) => f.line)).toEqual([5, 3, 1]);
    expect(found[0]).toMatchObject({ url: 'http://x/"error":{', error: { error_code: 400004, message: 'gone 5' } });
    expect((await resultFileFailures(dir, ['result-0.jsonl', 'result-1.jsonl'], 2, 10_000)).map((f) => f.line)).toEqual([5, 3]);
    // Only the latest `window` lines are looked at.
    expect((await resultFileFailures(dir, ['result-0.jsonl', 'result-1.jsonl'], 20, 3)).map((f) => f.line)).toEqual([5]);
    expect((await resultFileFailures(dir, ['result-0.jsonl', 'result-1.jsonl'], 20, 4)).map((f) => f.line)).toEqual([5, 3]);
  });

  it('skips a line cut by a crash and a file that is gone, and never leaves the task’s folder', async () => {
    writeFileSync(path.join(dir, 'result-2.jsonl'), `${error(7)}\n${error(8).slice(0, 40)}`);
    const found = await resultFileFailures(dir, ['../../etc/passwd', 'missing.jsonl', 'result-2.jsonl'], 20, 10_000);
    expect(found.map((f) => f.line)).toEqual([7]);
  });
});
