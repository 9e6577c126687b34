/**
 * The blob collector killed with SIGKILL at random points: a collector runs in a child process (pausing at
 * random between its steps) while this process stores, records and deletes images through the real
 * functions; after each kill, every reference points at a live blob whose file exists; after a final
 * collection, exactly the referenced blobs are left (garbage from interrupted runs is gone).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { BlobCollector } from '../../src/domains/blob-gc/blob-collector.js';
import { BlobGoneError } from '../../src/domains/blob-gc/blob-refs.repo.js';
import { BlobWriter } from '../../src/domains/blob-gc/blob-writer.js';
import { deleteRecordsByUrl, recordInput, upsertDownloadedRecord, withLockedSet } from '../../src/domains/data-sets/record.repo.js';
import { deleteDataSet } from '../../src/domains/data-sets/set.repo.js';
import { FileSystemBlobStore } from '../../src/images/blob-store.js';
import { createTestDatabase } from '../support/test-database.js';

const BACKEND_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ACCOUNT = 77;
const ITERATIONS = 6;
const CONTENTS = Array.from({ length: 24 }, (_, i) => Buffer.from(`crash-test image ${i} `.repeat(20 + i)));

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('blob collector under SIGKILL', () => {
  let database: { url: string; drop: () => Promise<void> };
  let pool: pg.Pool;
  let dir: string;
  let store: FileSystemBlobStore;
  let writer: BlobWriter;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    dir = mkdtempSync(path.join(os.tmpdir(), 'iris-blob-crash-'));
    store = new FileSystemBlobStore(dir);
    writer = new BlobWriter(pool, store, 0);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sets: string[] = [];
  const newSet = async () => {
    const id = newResourceId();
    await pool.query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, $2, 'image_set', 'crash')`, [id, ACCOUNT]);
    sets.push(id);
    return id;
  };
  /** Stores and records one image the way adding an image does (again when it was collected meanwhile). */
  const addImage = async (setId: string, i: number): Promise<void> => {
    for (;;) {
      const blobKey = await writer.put(CONTENTS[i]!);
      try {
        await withLockedSet(pool, setId, {}, (tx) =>
          upsertDownloadedRecord(tx, ACCOUNT, recordInput({ url: `https://example.com/${setId}/${i}` }), { blobKey, width: 1, height: 1, bytes: CONTENTS[i]!.length }),
        );
        return;
      } catch (err) {
        if (!(err instanceof BlobGoneError)) throw err;
      }
    }
  };
  const deleteImage = (setId: string, i: number) => withLockedSet(pool, setId, {}, (tx) => deleteRecordsByUrl(tx, [`https://example.com/${setId}/${i}`]));

  const referencedKeys = async () =>
    new Set(
      (
        await pool.query<{ blob_key: string }>(
          `SELECT blob_key FROM data_set_records WHERE deleted_at IS NULL AND blob_key IS NOT NULL
           UNION SELECT blob_key FROM url_blobs UNION SELECT blob_key FROM search_index_items WHERE deleted_at IS NULL`,
        )
      ).rows.map((r) => r.blob_key),
    );

  /** What must hold at any moment: references point at live blobs, and live blobs have their files. */
  const checkInvariants = async () => {
    const rows = new Map((await pool.query<{ blob_key: string; state: string }>('SELECT blob_key, state FROM stored_blobs')).rows.map((r) => [r.blob_key, r.state]));
    for (const key of await referencedKeys()) expect([key, rows.get(key)]).toEqual([key, 'live']);
    for (const [key, state] of rows) if (state === 'live') expect([key, existsSync(store.pathOf(key))]).toEqual([key, true]);
    return rows;
  };

  it('keeps every reference valid through kills, and the next run removes what the killed ones left', async () => {
    let deletedByChildren = 0;
    let leftDeleting = 0;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const setId = await newSet();
      for (let i = 0; i < CONTENTS.length; i++) if (Math.random() < 0.6) await addImage(setId, i);
      for (let i = 0; i < CONTENTS.length; i++) if (Math.random() < 0.4) await deleteImage(setId, i);
      if (sets.length > 2 && Math.random() < 0.5) await deleteDataSet(pool, ACCOUNT, sets.splice(0, 1)[0]!, 'image_set');

      const child = spawn(process.execPath, ['--import', 'tsx', 'test/blob-gc/collector-child.ts'], {
        cwd: BACKEND_DIR,
        env: { ...process.env, DATABASE_URL: database.url, IRIS_BLOB_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

      // While the collector works: re-uploads of the same contents and deletions, racing it.
      let racing = true;
      const race = (async () => {
        while (racing) {
          const target = pick(sets);
          const i = Math.floor(Math.random() * CONTENTS.length);
          await (Math.random() < 0.5 ? addImage(target, i) : deleteImage(target, i));
          await sleep(Math.random() * 20);
        }
      })();
      // Start-up takes a moment under tsx; kill somewhere in the collector's work after that.
      const started = Date.now();
      while (!output.includes('deleted') && Date.now() - started < 20_000 && child.exitCode === null) await sleep(20);
      await sleep(Math.random() * 400);
      child.kill('SIGKILL');
      await exited;
      racing = false;
      await race;
      expect(output).not.toMatch(/Error/);
      deletedByChildren += output.split('\n').filter((l) => l.startsWith('deleted ')).length;

      const rows = await checkInvariants();
      leftDeleting += [...rows.values()].filter((s) => s === 'deleting').length;
    }
    // The children did delete (the kills landed in real work), and the test saw interrupted deletions.
    expect(deletedByChildren).toBeGreaterThan(0);
    console.log(`blob crash test: ${deletedByChildren} blobs deleted by killed collectors, ${leftDeleting} deletions found interrupted`);

    // A fresh collector finishes what the killed ones left: exactly the referenced blobs remain.
    const collector = new BlobCollector(pool, store, { graceSeconds: 0, batch: 50 });
    await collector.collectDue();
    await collector.queueUnreferenced();
    await collector.collectDue();
    await collector.sweepFiles();
    await checkInvariants();
    const referenced = await referencedKeys();
    const registered = new Set((await pool.query<{ blob_key: string }>('SELECT blob_key FROM stored_blobs')).rows.map((r) => r.blob_key));
    const files = new Set<string>();
    for await (const file of store.list()) files.add(file.key);
    expect([...registered].sort()).toEqual([...referenced].sort());
    expect([...files].sort()).toEqual([...referenced].sort());
    expect(referenced.size).toBeGreaterThan(0);
  }, 240_000);
});
