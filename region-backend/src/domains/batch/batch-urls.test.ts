import { describe, expect, it } from 'vitest';
import { ApiError } from '@iris/shared';
import { MAX_REPORTED, parseBatchUrls } from './batch-urls.js';

async function errorOf(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('parseBatchUrls', () => {
  it('numbers lines from 0 in the file as uploaded, skipping empty ones', async () => {
    const lines = await parseBatchUrls(bytes('\uFEFFhttp://a.example/1.jpg\r\n\r\n  https://b.example/2.png  \rhttp://a.example/3.jpg\n'), 100);
    expect(lines).toEqual([
      { line: 0, url: 'http://a.example/1.jpg' },
      { line: 2, url: 'https://b.example/2.png' },
      { line: 3, url: 'http://a.example/3.jpg' },
    ]);
  });

  it('keeps non-ASCII URLs', async () => {
    expect(await parseBatchUrls(bytes('http://例子.cn/图片.jpg\nhttp://例子.cn/b.jpg'), 10)).toHaveLength(2);
  });

  it('refuses bytes that are not UTF-8 (400003) and files without a URL (400004)', async () => {
    expect((await errorOf(() => parseBatchUrls(Buffer.from([0x61, 0xc3, 0x28]), 10))).code).toBe(400003);
    expect((await errorOf(() => parseBatchUrls(bytes(''), 10))).code).toBe(400004);
    expect((await errorOf(() => parseBatchUrls(bytes('\uFEFF\n \r\n'), 10))).code).toBe(400004);
  });

  it('reports invalid URLs (index → URL) and duplicated URLs (URL → indexes) together (400005)', async () => {
    const long = `http://a.example/${'x'.repeat(600)}`;
    const err = await errorOf(() => parseBatchUrls(bytes(['http://a/1', 'javascript:alert(1)', 'http://a/1', long, 'http://a/2 x', 'http://a/1'].join('\n')), 10));
    expect(err.code).toBe(400005);
    expect(err.extra).toEqual({
      urls_duplicated: { 'http://a/1': [0, 2, 5] },
      urls_verify_failed: { '1': 'javascript:alert(1)', '3': long, '4': 'http://a/2 x' },
    });
  });

  it('needs two different URLs', async () => {
    const err = await errorOf(() => parseBatchUrls(bytes('http://a/1\n'), 10));
    expect(err.code).toBe(400005);
    expect(err.message).toMatch(/at least 2 different URLs/);
  });

  it('caps the reported entries and refuses more URLs than a task may hold (400006)', async () => {
    const many = Array.from({ length: MAX_REPORTED + 5 }, (_, i) => `bad ${i}`).join('\n');
    const err = await errorOf(() => parseBatchUrls(bytes(many), 10_000));
    expect(Object.keys(err.extra!.urls_verify_failed as object)).toHaveLength(MAX_REPORTED);
    expect(err.message).toMatch(/first 1000/);
    expect((await errorOf(() => parseBatchUrls(bytes('http://a/1\nhttp://a/2\nhttp://a/3'), 2))).code).toBe(400006);
  });
});
