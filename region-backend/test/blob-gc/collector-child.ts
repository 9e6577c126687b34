/**
 * A blob collector alone in a process, for the crash test: collects and sweeps in a loop, pausing at random
 * between its steps (so a SIGKILL lands anywhere), until it is killed. Prints a line per deleted blob.
 */
import pg from 'pg';
import { BlobCollector } from '../../src/domains/blob-gc/blob-collector.js';
import { FileSystemBlobStore } from '../../src/images/blob-store.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
const store = new FileSystemBlobStore(process.env.IRIS_BLOB_DIR!);
const collector = new BlobCollector(pool, store, {
  graceSeconds: 0,
  batch: 5,
  onStep: (step, key) => {
    if (step === 'deleted') process.stdout.write(`deleted ${key}\n`);
    return new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
  },
});

for (;;) {
  const run = await collector.collectDue(1);
  await collector.queueUnreferenced();
  await collector.sweepFiles();
  if (!run.deleted && !run.kept) await new Promise((resolve) => setTimeout(resolve, 10));
}
