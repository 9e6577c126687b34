/**
 * A batch task yields to interactive calls: its lines download two at a time (IRIS_BATCH_CONCURRENCY) while
 * nothing else runs, one at a time while another account's analysis calls are being served. Real backend (in
 * process, job workers and inference threads), real PostgreSQL, a real HTTP server that answers slowly and
 * counts the downloads it serves at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../support/test-images.js';
import { startSlowImageServer, type SlowImageServer } from '../support/slow-image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { apply, prepare, waitForState } from './batch-helpers.js';

const LINES = 10;

describe('batch tasks yield to interactive calls', () => {
  let backend: TestBackend;
  let server: SlowImageServer;
  let jpeg: Buffer;

  beforeAll(async () => {
    jpeg = await photoJpeg(320, 240, 4);
    server = await startSlowImageServer(jpeg);
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
  });

  /** Runs a colour task of LINES new URLs to SUCCESS; answers the most downloads served at once. */
  async function runTask(tag: string): Promise<number> {
    server.resetMost();
    const urls = Array.from({ length: LINES }, (_, i) => `${server.base}/${tag}-${i}.jpg`).join('\n');
    const prepared = await prepare(backend, '_0000072', urls);
    expect(prepared.statusCode).toBe(200);
    expect((await apply(backend, prepared.taskId)).statusCode).toBe(200);
    await waitForState(backend, prepared.taskId, ['SUCCESS']);
    return server.mostOpen;
  }

  it('two lines at once alone, one at a time beside interactive analysis calls', async () => {
    expect(await runTask('alone')).toBe(2);

    let calling = true;
    const image = multipart({ image: { filename: 'q.jpg', content: jpeg, contentType: 'image/jpeg' } });
    const caller = (async () => {
      while (calling) await backend.call({ method: 'POST', url: '/classify/_0000024', payload: image.payload, headers: image.headers, accountId: 5 });
    })();
    try {
      expect(await runTask('beside')).toBe(1);
    } finally {
      calling = false;
      await caller;
    }
  });
});
