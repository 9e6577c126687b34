/**
 * A batch task yields to interactive calls: its lines download two at a time (IRIS_BATCH_CONCURRENCY) while
 * nothing else runs, one at a time and at most IRIS_YIELDING_BATCH_LINES_PER_SECOND (default 10) a second
 * while another account's analysis calls are being served. Real backend (in process, job workers and
 * inference threads), real PostgreSQL, real HTTP servers that answer slowly (or at once) and count the
 * downloads they serve at once and when each came.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../support/test-images.js';
import { startSlowImageServer, type SlowImageServer } from '../support/slow-image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { whileCalling } from '../support/while-calling.js';
import { apply, prepare, waitForState } from './batch-helpers.js';

const LINES = 10;

describe('batch tasks yield to interactive calls', () => {
  let backend: TestBackend;
  let server: SlowImageServer;
  /** Answers at once: the lines' pace is then the gate's. */
  let quick: SlowImageServer;
  let jpeg: Buffer;

  beforeAll(async () => {
    jpeg = await photoJpeg(320, 240, 4);
    server = await startSlowImageServer(jpeg);
    quick = await startSlowImageServer(jpeg, 0);
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
    await quick?.close();
  });

  /** Runs a colour task of `lines` new URLs to SUCCESS; answers the most downloads served at once. */
  async function runTask(tag: string, from = server, lines = LINES): Promise<number> {
    from.resetMost();
    const urls = Array.from({ length: lines }, (_, i) => `${from.base}/${tag}-${i}.jpg`).join('\n');
    const prepared = await prepare(backend, '_0000072', urls);
    expect(prepared.statusCode).toBe(200);
    expect((await apply(backend, prepared.taskId)).statusCode).toBe(200);
    await waitForState(backend, prepared.taskId, ['SUCCESS']);
    return from.mostOpen;
  }

  /** While another account makes one analysis call after the other, runs `work`. */
  function besideCalls<T>(work: () => Promise<T>): Promise<T> {
    const image = multipart({ image: { filename: 'q.jpg', content: jpeg, contentType: 'image/jpeg' } });
    return whileCalling(() => backend.call({ method: 'POST', url: '/classify/_0000024', payload: image.payload, headers: image.headers, accountId: 5 }), work);
  }

  it('two lines at once alone, one at a time beside interactive analysis calls', async () => {
    expect(await runTask('alone')).toBe(2);
    expect(await besideCalls(() => runTask('beside'))).toBe(1);
  });

  it('beside interactive calls, lines start at most 10 a second', async () => {
    await besideCalls(() => runTask('quick-beside', quick, 6));
    const gaps = quick.arrivalGaps;
    expect(gaps).toHaveLength(5);
    // 100 ms between starts at the gate. Each request leaves after a claim query, whose time varies under
    // load, so the span of the five gaps is checked (jitter only moves its two ends).
    expect(gaps.reduce((sum, gap) => sum + gap, 0)).toBeGreaterThanOrEqual(450);
  });
});
