/**
 * Background downloads yield to other accounts' calls: an account alone downloads several images at once,
 * but while another account is being served its downloads run one at a time. Real backend (in process),
 * real PostgreSQL, a real HTTP server that answers slowly and counts the downloads it serves at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../support/test-images.js';
import { startSlowImageServer, type SlowImageServer } from '../support/slow-image-server.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload, waitFor } from '../data-sets/helpers.js';

const A = 71;
const B = 72;
const URLS = 12;

describe('downloads yield to other accounts', () => {
  let backend: TestBackend;
  let server: SlowImageServer;

  beforeAll(async () => {
    const jpeg = await photoJpeg(320, 240, 5);
    server = await startSlowImageServer(jpeg);
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
  });

  /** A's set of URLS new images; resolves once every one is downloaded, with the most downloads served at once. */
  async function downloadSet(tag: string): Promise<number> {
    server.resetMost();
    const id = await createImageSet(backend, tag, A);
    const csv = Array.from({ length: URLS }, (_, i) => `${server.base}/${tag}-${i}.jpg`).join('\n');
    const file = fileUpload('urls_to_add', csv);
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${id}`, payload: file.payload, headers: file.headers, accountId: A })).statusCode).toBe(200);
    await waitFor(
      async () => (await backend.call({ method: 'GET', url: `/image_sets/_0000014/${id}`, accountId: A })).json(),
      (set) => set.status === 'downloaded',
      60_000,
    );
    return server.mostOpen;
  }

  it('several at once while the account is alone, one at a time while another account is served', async () => {
    expect(await downloadSet('alone')).toBeGreaterThanOrEqual(2);

    // B makes one call after the other (listing its sets) for as long as A's set downloads.
    let calling = true;
    const caller = (async () => {
      while (calling) await backend.call({ method: 'GET', url: '/image_sets/_0000014', accountId: B });
    })();
    try {
      expect(await downloadSet('beside')).toBe(1);
    } finally {
      calling = false;
      await caller;
    }
  });
});
