/**
 * A multipart upload whose file part is cut off before its closing boundary (the body itself whole, of its
 * signed length) used to stop the backend process: the part's rejected write was left unhandled. A real
 * child process must refuse it with 400 and go on serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import type { ChildBackend } from '../data-sets/child-backend.js';
import { startCrashHarness, type CrashHarness } from '../support/crash-harness.js';
import { photoJpeg } from '../support/test-images.js';

describe('a cut multipart body against a backend process', () => {
  let harness: CrashHarness;
  let backend: ChildBackend;
  beforeAll(async () => {
    harness = await startCrashHarness('cut-multipart');
    backend = await harness.startBackend();
  }, 120_000);
  afterAll(() => harness?.close());

  it('refuses each one with 400 and still answers calls', async () => {
    const boundary = `----iris${newResourceId(12)}`;
    const image = await photoJpeg(320, 240, 5);
    const whole = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="q.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      image,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    for (const cut of [200, Math.floor(whole.length / 2), whole.length - 10]) {
      const res = await backend.call({ method: 'POST', url: '/detect/_0000049', accountId: 5, body: whole.subarray(0, cut), headers });
      expect(res.status).toBe(400);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(backend.process.exitCode).toBeNull();
    const ok = await backend.call({ method: 'POST', url: '/detect/_0000049', accountId: 5, body: whole, headers });
    expect(ok.status).toBe(200);
  }, 120_000);
});
