/**
 * URLs on a domain whose name servers never answer: the backend resolves client URLs over its own DNS client
 * (not the thread pool every request's signature check uses), each resolution under a time limit, and an
 * account's URL downloads in flight are capped. While one account's calls wait on a silent name server, another
 * account's calls (a listing, an analysis of a URL by IP address) are answered; the waiting calls end with the
 * family's download error, and the account's calls past its cap are refused at once with 503/9006.
 */
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startImageServer, type ImageServer } from '../support/image-server.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { photoJpeg } from '../support/test-images.js';
import { waitUntil } from '../support/wait-for.js';

describe('client URLs on a silent name server', () => {
  let backend: TestBackend;
  let silent: dgram.Socket;
  let images: ImageServer;
  let queries = 0;

  beforeAll(async () => {
    // Reads every query and never replies.
    silent = dgram.createSocket('udp4');
    silent.on('message', () => queries++);
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    images = await startImageServer();
    images.set('/photo.jpg', await photoJpeg(320, 240, 3));
    backend = await startTestBackend(
      { IRIS_DNS_SERVERS: `127.0.0.1:${silent.address().port}`, IRIS_DNS_TIMEOUT_MS: '10000', IRIS_ACCOUNT_FETCHES: '2' },
      { workers: false },
    );
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
    silent?.close();
  });

  const detect = (accountId: number, url: string) => backend.call({ method: 'POST', url: '/detect/_0000049', accountId, payload: { url } });

  it('keeps serving other accounts while one account waits on it, caps that account, and ends its waits', async () => {
    const settled: number[] = [];
    const waiting = [1, 2].map((i) =>
      detect(81, `http://silent-${i}.iris.test/a.jpg`).then((res) => {
        settled.push(i);
        return res;
      }),
    );
    // Both are waiting on the silent server (their queries reached it, and only it).
    await waitUntil(async () => queries, (n) => n >= 2, 30_000);

    const third = await detect(81, 'http://silent-3.iris.test/a.jpg');
    expect(third.statusCode).toBe(503);
    expect(third.json()).toMatchObject({ data: { is_err: 1, error_code: 9006 } });

    const listing = await backend.call({ method: 'GET', url: '/get_image_sets/_0000014', accountId: 82 });
    expect(listing.statusCode).toBe(200);
    const analysed = await detect(82, images.url('/photo.jpg'));
    expect(analysed.statusCode).toBe(200);
    // Answered while account 81's resolutions were still waiting on the silent server.
    expect(settled).toEqual([]);

    for (const res of await Promise.all(waiting)) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ data: { is_err: 1, error_code: 400004, message: expect.stringMatching(/cannot be resolved/) } });
    }
    // The account's slots are back: its next URL call is served, not refused as busy.
    expect((await detect(81, images.url('/photo.jpg'))).statusCode).toBe(200);
  }, 120_000);
});
