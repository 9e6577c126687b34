/**
 * Per-account upload limit over real HTTP: while an account's upload is in flight (its body still arriving)
 * a second one of the same account is refused with 503/9006 in the family's shape; another account's upload
 * goes through; once the first upload ends, the account may upload again. Past IRIS_PROCESS_UPLOADS of the
 * whole process, any account's upload is refused the same way.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, newResourceId, signInternal } from '@iris/shared';
import { multipart, startTestBackend, TEST_SECRET, type TestBackend } from '../support/test-app.js';
import { waitUntil } from '../support/wait-for.js';

describe('uploads per account', () => {
  let backend: TestBackend;
  let port: number;

  beforeAll(async () => {
    backend = await startTestBackend({ IRIS_ACCOUNT_UPLOADS: '1', IRIS_PROCESS_UPLOADS: '3' }, { workers: false });
    await backend.app.listen({ host: '127.0.0.1', port: 0 });
    port = (backend.app.server.address() as AddressInfo).port;
  });
  afterAll(() => backend?.close());

  const signed = (accountId: number, url: string, body: Uint8Array | { length: number }) =>
    signInternal(TEST_SECRET, {
      method: 'POST',
      pathWithQuery: url,
      accountId,
      body,
      context: { requestId: newResourceId(16), lang: 'en', quotas: { ...DEFAULT_QUOTAS }, services: ['_0000049'] },
    });

  /** Starts a multipart upload whose body never finishes; returns the socket. */
  async function hangingUpload(accountId: number): Promise<net.Socket> {
    const url = '/detect/_0000049';
    const headers = await signed(accountId, url, { length: 1000000 });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = [`POST ${url} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: multipart/form-data; boundary=xyz', 'Content-Length: 1000000', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join('\r\n')}\r\n\r\n--xyz\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\nabc`);
    return socket;
  }

  async function upload(accountId: number) {
    const url = '/detect/_0000049';
    const body = multipart({ image: { filename: 'a.txt', content: 'not an image' } });
    const res = await fetch(`http://127.0.0.1:${port}${url}`, { method: 'POST', headers: { ...(await signed(accountId, url, body.payload)), ...body.headers }, body: body.payload });
    return { status: res.status, body: (await res.json()) as { data?: { error_code?: number }; status?: number } };
  }

  it('refuses a second upload of the same account with 503/9006, not another account’s', async () => {
    const hanging = await hangingUpload(61);
    await waitUntil(async () => backend.app.uploadSlots.inFlight('61'), (n) => n === 1, 30_000);
    const refused = await upload(61);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ data: { is_err: 1, error_code: 9006 }, status: 503 });
    const other = await upload(62);
    expect(other.status).not.toBe(503);
    hanging.destroy();
    await waitUntil(async () => backend.app.uploadSlots.inFlight(), (n) => n === 0, 30_000);
    expect((await upload(61)).status).not.toBe(503);
  });

  it('refuses any account’s upload past the process’s limit, and takes uploads again once one ends', async () => {
    const hanging = await Promise.all([64, 65, 66].map(hangingUpload));
    await waitUntil(async () => backend.app.uploadSlots.inFlight(), (n) => n === 3, 30_000);
    const refused = await upload(67);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ data: { is_err: 1, error_code: 9006 }, status: 503 });
    hanging[0]!.destroy();
    await waitUntil(async () => backend.app.uploadSlots.inFlight(), (n) => n === 2, 30_000);
    expect((await upload(67)).status).not.toBe(503);
    for (const socket of hanging) socket.destroy();
    await waitUntil(async () => backend.app.uploadSlots.inFlight(), (n) => n === 0, 30_000);
  });

  it('never refuses a caller sending one upload after the other (the slot is free when the answer arrives)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await upload(63)).status);
    expect(statuses.filter((s) => s === 503)).toEqual([]);
  });
});
