/**
 * Background downloads yield to other accounts' calls: an account alone downloads several images at once,
 * but while another account is being served its downloads run one at a time. Real backend (in process),
 * real PostgreSQL, a real HTTP server that answers slowly and counts the downloads it serves at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../support/test-images.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload, waitFor } from '../data-sets/helpers.js';

const A = 71;
const B = 72;
const URLS = 12;

describe('downloads yield to other accounts', () => {
  let backend: TestBackend;
  let server: http.Server;
  let base: string;
  let open = 0;
  let mostOpen = 0;

  beforeAll(async () => {
    const jpeg = await photoJpeg(320, 240, 5);
    server = http.createServer((_req, res) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': jpeg.length }).end(jpeg);
      }, 150);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A's set of URLS new images; resolves once every one is downloaded, with the most downloads served at once. */
  async function downloadSet(tag: string): Promise<number> {
    mostOpen = 0;
    const id = await createImageSet(backend, tag, A);
    const csv = Array.from({ length: URLS }, (_, i) => `${base}/${tag}-${i}.jpg`).join('\n');
    const file = fileUpload('urls_to_add', csv);
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${id}`, payload: file.payload, headers: file.headers, accountId: A })).statusCode).toBe(200);
    await waitFor(
      async () => (await backend.call({ method: 'GET', url: `/image_sets/_0000014/${id}`, accountId: A })).json(),
      (set) => set.status === 'downloaded',
      60_000,
    );
    return mostOpen;
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
