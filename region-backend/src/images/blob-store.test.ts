import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentKey, FileSystemBlobStore, InvalidBlobKeyError, putContent } from './blob-store.js';

let root: string;
let store: FileSystemBlobStore;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'iris-blobs-'));
  store = new FileSystemBlobStore(root);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const text = (s: string) => new TextEncoder().encode(s);

describe('FileSystemBlobStore', () => {
  it('round-trips bytes and answers has/delete', async () => {
    const bytes = text('a small image, pretend');
    const key = contentKey(bytes);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await store.get(key)).toBeNull();
    expect(await store.has(key)).toBe(false);
    await store.put(key, bytes);
    expect(await store.has(key)).toBe(true);
    expect(Buffer.from((await store.get(key))!).equals(Buffer.from(bytes))).toBe(true);
    const stream = await store.stream(key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream!) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('a small image, pretend');
    expect(await store.delete(key)).toBe(true);
    expect(await store.delete(key)).toBe(false);
    expect(await store.get(key)).toBeNull();
    expect(await store.stream(key)).toBeNull();
  });

  it('shards files by key prefix and leaves no temporary files behind', async () => {
    const keys = await Promise.all(['one', 'two', 'three'].map((s) => putContent(store, text(s))));
    for (const key of keys) {
      const file = path.join(root, key.slice(0, 2), key.slice(2, 4), key);
      expect(store.pathOf(key)).toBe(file);
      expect((await readFile(file)).length).toBeGreaterThan(0);
    }
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
  });

  it('stores equal content once', async () => {
    const a = await putContent(store, text('same'));
    const b = await putContent(store, text('same'));
    expect(a).toBe(b);
    expect(await readdir(path.join(root, a.slice(0, 2), a.slice(2, 4)))).toEqual([a]);
  });

  it('refuses keys that could escape the root or mean different files on other systems', async () => {
    for (const key of ['../../etc/passwd', 'ab/../../x', '', 'abc', 'ABCDEF', '.hidden', 'a b c d', 'x'.repeat(201)]) {
      expect(() => store.pathOf(key)).toThrow(InvalidBlobKeyError);
      await expect(store.put(key, text('x'))).rejects.toThrow(InvalidBlobKeyError);
    }
  });

  it('never lets a reader see a partly written blob while it is replaced', async () => {
    const key = 'replaced-blob';
    const a = new Uint8Array(4 * 1024 * 1024).fill(0xaa);
    const b = new Uint8Array(3 * 1024 * 1024).fill(0xbb);
    await store.put(key, a);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 12; i++) await store.put(key, i % 2 ? a : b);
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const got = (await store.get(key))!;
      const ok = (got.length === a.length && got[0] === 0xaa && got[got.length - 1] === 0xaa) || (got.length === b.length && got[0] === 0xbb && got[got.length - 1] === 0xbb);
      expect(ok).toBe(true);
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
  });

  it('cleans up its temporary file when the final rename fails', async () => {
    const key = 'blocked-key';
    await mkdir(store.pathOf(key), { recursive: true }); // a directory where the file should go
    await expect(store.put(key, text('x'))).rejects.toThrow();
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
  });

  it('sweeps temporary files abandoned by a crashed writer', async () => {
    await mkdir(path.join(root, '.tmp'), { recursive: true });
    const stale = path.join(root, '.tmp', 'abandoned.123.abc');
    const fresh = path.join(root, '.tmp', 'in-flight.456.def');
    await writeFile(stale, 'x');
    await writeFile(fresh, 'y');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(stale, old, old);
    expect(await store.sweepTemporary()).toBe(1);
    expect(await readdir(path.join(root, '.tmp'))).toEqual(['in-flight.456.def']);
  });
});
