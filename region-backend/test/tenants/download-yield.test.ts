/**
 * Background downloads yield to other accounts' calls: an account alone downloads several images at once,
 * but while another account is being served its downloads run one at a time, at most
 * IRIS_YIELDING_DOWNLOADS_PER_SECOND (default 10) a second. Real backend (in process), real PostgreSQL, real
 * HTTP servers that answer slowly (or at once) and count the downloads they serve at once and when each came.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../support/test-images.js';
import { startSlowImageServer, type SlowImageServer } from '../support/slow-image-server.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { whileCalling } from '../support/while-calling.js';
import { createImageSet, fileUpload, waitFor } from '../data-sets/helpers.js';

const A = 71;
const B = 72;
const URLS = 12;

describe('downloads yield to other accounts', () => {
  let backend: TestBackend;
  let server: SlowImageServer;
  /** Answers at once: the downloads' pace is then the gate's. */
  let quick: SlowImageServer;

  beforeAll(async () => {
    const jpeg = await photoJpeg(320, 240, 5);
    server = await startSlowImageServer(jpeg);
    quick = await startSlowImageServer(jpeg, 0);
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
    await quick?.close();
  });

  /** A's set of `count` new images; resolves once every one is downloaded, with the most downloads served at once. */
  async function downloadSet(tag: string, from = server, count = URLS): Promise<number> {
    from.resetMost();
    const id = await createImageSet(backend, tag, A);
    const csv = Array.from({ length: count }, (_, i) => `${from.base}/${tag}-${i}.jpg`).join('\n');
    const file = fileUpload('urls_to_add', csv);
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${id}`, payload: file.payload, headers: file.headers, accountId: A })).statusCode).toBe(200);
    await waitFor(
      async () => (await backend.call({ method: 'GET', url: `/image_sets/_0000014/${id}`, accountId: A })).json(),
      (set) => set.status === 'downloaded',
      60_000,
    );
    return from.mostOpen;
  }

  /** While B makes one call after the other (listing its sets), runs `work`. */
  function besideB<T>(work: () => Promise<T>): Promise<T> {
    return whileCalling(() => backend.call({ method: 'GET', url: '/image_sets/_0000014', accountId: B }), work);
  }

  it('several at once while the account is alone, one at a time while another account is served', async () => {
    expect(await downloadSet('alone')).toBeGreaterThanOrEqual(2);

    expect(await besideB(() => downloadSet('beside'))).toBe(1);
  });

  it('paced while another account is served: downloads start at most 10 a second; unpaced alone', async () => {
    await downloadSet('quick-alone', quick, 6);
    const alone = quick.arrivalGaps;
    expect(Math.min(...alone)).toBeLessThan(50);

    await besideB(() => downloadSet('quick-beside', quick, 6));
    const beside = quick.arrivalGaps;
    expect(beside).toHaveLength(5);
    // 100 ms between starts at the gate. Each request leaves after a claim query, whose time varies under
    // load, so the span of the five gaps is checked (jitter only moves its two ends).
    expect(beside.reduce((sum, gap) => sum + gap, 0)).toBeGreaterThanOrEqual(450);
  });
});
