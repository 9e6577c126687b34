import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@iris/shared';
import { multipart } from '../../test/support/test-app.js';
import { waitUntil } from '../../test/support/wait-for.js';
import { registerErrorHandling } from './error-handler.js';
import { MEMORY_PART_BYTES, MEMORY_UPLOAD_BYTES, readBody, registerBodyHandling, uploadMemoryInUse } from './request-body.js';

describe('request bodies', () => {
  let app: FastifyInstance;
  let tmpDir: string;
  beforeAll(async () => {
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'iris-body-'));
    app = Fastify({ bodyLimit: 2 * LIMITS.uploadBytes });
    registerBodyHandling(app);
    registerErrorHandling(app);
    app.post('/upload', async (request) => {
      const body = await readBody(request, { tmpDir });
      return { sizes: body.files.map((f) => f.size) };
    });
    // Where each part went, a checksum of the bytes read back, and the memory held meanwhile.
    app.post('/where', async (request) => {
      const body = await readBody(request, { tmpDir });
      const file = body.files[0]!;
      const bytes = (await body.bytes(file.field))!;
      peakMemory = Math.max(peakMemory, uploadMemoryInUse());
      await new Promise((r) => setTimeout(r, 20)); // hold the part while other requests arrive
      return { inMemory: file.data !== null, onDisk: file.path !== null, size: file.size, sum: checksum(bytes) };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(tmpDir, { recursive: true, force: true });
  });

  let peakMemory = 0;
  const content = (size: number, seed: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + seed) & 0xff));
  const checksum = (bytes: Buffer) => bytes.reduce((a, b) => (a + b) % 65_521, 0);
  const send = (bytes: Buffer) => {
    const body = multipart({ image: { filename: 'q.jpg', content: bytes } });
    return app.inject({ method: 'POST', url: '/where', payload: body.payload, headers: body.headers });
  };

  it('keeps a small file part in memory and spills a larger one, with what it held, to a temp file; both read back whole', async () => {
    const before = readdirSync(tmpDir).length;
    const small = content(MEMORY_PART_BYTES, 1);
    const smallAnswer = (await send(small)).json();
    expect(smallAnswer).toEqual({ inMemory: true, onDisk: false, size: small.length, sum: checksum(small) });
    expect(readdirSync(tmpDir).length).toBe(before); // no temp folder for it
    const large = content(MEMORY_PART_BYTES + 1, 2);
    expect((await send(large)).json()).toEqual({ inMemory: false, onDisk: true, size: large.length, sum: checksum(large) });
    // The spilled part's folder is removed once the call is answered.
    await waitUntil(async () => readdirSync(tmpDir).length, (n) => n === before, 5_000);
    expect(uploadMemoryInUse()).toBe(0); // given back when answered
  });

  it('holds at most the process budget in memory however many uploads arrive at once; the rest go to temp files', async () => {
    peakMemory = 0;
    const count = Math.ceil(MEMORY_UPLOAD_BYTES / MEMORY_PART_BYTES) + 8;
    const parts = Array.from({ length: count }, (_, i) => content(MEMORY_PART_BYTES - i, i));
    const answers = (await Promise.all(parts.map(send))).map((r) => r.json());
    answers.forEach((answer, i) => expect(answer).toMatchObject({ size: parts[i]!.length, sum: checksum(parts[i]!) }));
    expect(answers.filter((a) => a.onDisk).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.inMemory).length).toBeGreaterThan(0);
    expect(peakMemory).toBeLessThanOrEqual(MEMORY_UPLOAD_BYTES);
    expect(uploadMemoryInUse()).toBe(0);
  });

  it('refuses a file part cut off before its closing boundary with 400, and nothing is left unhandled', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const body = multipart({ image: { filename: 'q.jpg', content: content(48 * 1024, 3) }, note: 'x' });
      for (const cut of [20_000, 40_000]) {
        const res = await app.inject({ method: 'POST', url: '/where', payload: body.payload.subarray(0, cut), headers: body.headers });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error_code: 5001 });
      }
      await new Promise((r) => setTimeout(r, 100));
      // Before, each cut body left its part's rejected write unhandled, which stops a Node process.
      expect(unhandled).toEqual([]);
      expect(uploadMemoryInUse()).toBe(0);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('gives back the memory budget and removes the temp folder of parts whose client dropped mid-body', async () => {
    const before = readdirSync(tmpDir).length;
    const port = (app.server.address() as AddressInfo).port;
    const dropped = async (sendBytes: number) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`POST /where HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${10 * MEMORY_PART_BYTES}\r\n\r\n`);
      socket.write(`--b\r\nContent-Disposition: form-data; name="image"; filename="q.jpg"\r\n\r\n`);
      await new Promise<void>((resolve) => socket.write(Buffer.alloc(sendBytes, 7), () => resolve()));
      // Dropped once the server holds part of it (in memory, or on disk past MEMORY_PART_BYTES).
      await waitUntil(async () => uploadMemoryInUse() + readdirSync(tmpDir).length - before, (held) => held > 0, 10_000).catch(() => {});
      socket.destroy();
    };
    await dropped(MEMORY_PART_BYTES / 2); // held in memory
    await dropped(3 * MEMORY_PART_BYTES); // spilled to a temp file
    await waitUntil(async () => ({ memory: uploadMemoryInUse(), folders: readdirSync(tmpDir).length - before }), (left) => left.memory === 0 && left.folders === 0, 10_000);
  });

  it('refuses a text field over 1 MB, and text fields over 4 MB together, with 413, instead of cutting them', async () => {
    const post = (parts: Parameters<typeof multipart>[0]) => {
      const body = multipart(parts);
      return app.inject({ method: 'POST', url: '/upload', payload: body.payload, headers: body.headers });
    };
    const mb = 'x'.repeat(LIMITS.plainBodyBytes);
    expect((await post({ a: mb })).statusCode).toBe(200);
    const long = await post({ a: `${mb}y` });
    expect(long.statusCode).toBe(413);
    expect(long.json()).toMatchObject({ error_code: 1110, message: expect.stringMatching(/field a/) });
    const many = await post(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, mb])));
    expect(many.statusCode).toBe(413);
    expect(many.json().message).toMatch(/together/);
    expect(uploadMemoryInUse()).toBe(0);
  });

  const upload = (size: number) => {
    const body = multipart({ urls_to_add: { filename: 'urls.csv', content: Buffer.alloc(size, 0x61) } });
    return app.inject({ method: 'POST', url: '/upload', payload: body.payload, headers: body.headers });
  };

  it('takes uploaded files under 50 MB and refuses one of 50 MB', async () => {
    const under = await upload(LIMITS.uploadBytes - 1);
    expect(under.statusCode).toBe(200);
    expect(under.json().sizes).toEqual([LIMITS.uploadBytes - 1]);

    const at = await upload(LIMITS.uploadBytes);
    expect(at.statusCode).toBe(413);
    expect(at.json()).toMatchObject({ error_code: 1110, message: expect.stringMatching(/under 50 MB/) });
  });

  it('refuses a multipart body over 64 MB, each of its files under 50 MB, with 413, leaving no temp file', async () => {
    const before = readdirSync(tmpDir).length;
    const part = { filename: 'a.bin', content: Buffer.alloc(33 * 1024 * 1024, 1) };
    const body = multipart({ a: part, b: part });
    const res = await app.inject({ method: 'POST', url: '/upload', payload: body.payload, headers: body.headers });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error_code: 1110, message: expect.stringMatching(/64 MB/) });
    await waitUntil(async () => readdirSync(tmpDir).length, (n) => n === before, 10_000);
    expect(uploadMemoryInUse()).toBe(0);
  });
});
