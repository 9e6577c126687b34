/**
 * Bulk files yield to other accounts' calls: an account sending calls in parallel has its files applied one
 * at a time while another account is served, each file of n rows holding its next one back n /
 * IRIS_YIELDING_BULK_ROWS_PER_SECOND seconds; a sequential caller's files are never held. Real backend (in
 * process), real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { whileCalling } from '../support/while-calling.js';
import { waitUntil } from '../support/wait-for.js';
import { createImageSet, fileUpload } from '../data-sets/helpers.js';

const A = 81;
const B = 82;
const ROWS = 50;
const ROWS_PER_SECOND = 200;

describe('bulk files yield to other accounts', () => {
  let backend: TestBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ IRIS_YIELDING_BULK_ROWS_PER_SECOND: String(ROWS_PER_SECOND) });
  });
  afterAll(async () => {
    await backend?.close();
  });

  /** `files` files of ROWS new URLs into one of `account`'s sets, from `callers` callers at once; answers when each file was applied. */
  async function addFiles(account: number, tag: string, files: number, callers: number): Promise<number[]> {
    const id = await createImageSet(backend, tag, account);
    const answered: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (next < files) {
          const n = next++;
          // The URLs are never fetched in time to matter: the port answers nothing (downloads fail later).
          const csv = Array.from({ length: ROWS }, (_, i) => `http://127.0.0.1:9/${tag}-${n}-${i}.jpg`).join('\n');
          const file = fileUpload('urls_to_add', csv);
          const res = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${id}`, payload: file.payload, headers: file.headers, accountId: account });
          expect(res.statusCode).toBe(200);
          answered.push(performance.now());
        }
      }),
    );
    return answered.sort((x, y) => x - y);
  }

  const gapsOf = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

  it("spaces a parallel caller's files while another account is served", async () => {
    const answered = await whileCalling(() => backend.call({ method: 'GET', url: '/image_sets/_0000014', accountId: B }), () => addFiles(A, 'beside', 5, 3));
    // Each file of 50 rows holds the next back 250 ms; four gaps, less a little jitter at their two ends.
    expect(gapsOf(answered).reduce((sum, gap) => sum + gap, 0)).toBeGreaterThanOrEqual(4 * (ROWS / ROWS_PER_SECOND) * 1000 - 50);
  });

  it("never holds a sequential caller's files, nor a parallel caller's alone", async () => {
    // B calls one after the other while A's parallel flood of listings runs: B is not the one who yields.
    const parallelA = () => Promise.all([1, 2].map(() => backend.call({ method: 'GET', url: '/image_sets/_0000014', accountId: A })));
    const waitsBefore = backend.app.bulkWrites.waitsOf(String(A));
    const sequential = await whileCalling(parallelA, () => addFiles(B, 'sequential', 5, 1));
    // Alone: once B's calls no longer count as recent (a second after its last).
    await waitUntil(async () => backend.app.accountCalls.othersActive(String(A)), (active) => !active, 10_000);
    const alone = await addFiles(A, 'alone', 5, 3);
    expect([sequential.length, alone.length]).toEqual([5, 5]);
    // Neither B's files nor A's files alone ever waited for a turn.
    expect(backend.app.bulkWrites.waitsOf(String(B))).toBe(0);
    expect(backend.app.bulkWrites.waitsOf(String(A))).toBe(waitsBefore);
  });
});
