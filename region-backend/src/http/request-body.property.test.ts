import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../../test/support/time-bound.js';
import { waitUntil } from '../../test/support/wait-for.js';
import { registerErrorHandling } from './error-handler.js';
import { MAX_BODY_PARTS, PARAM_MAX_CHARS, cutTruncatedParams } from './input-limits.js';
import { multipart } from '../../test/support/test-app.js';
import { MEMORY_PART_BYTES, readBody, registerBodyHandling, uploadMemoryInUse } from './request-body.js';

describe('urlencoded and JSON bodies on hostile input', () => {
  let app: FastifyInstance;
  let tmpDir: string;
  beforeAll(async () => {
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'iris-body-prop-'));
    app = Fastify();
    registerBodyHandling(app);
    registerErrorHandling(app);
    app.post('/echo', async (request) => {
      const body = await readBody(request, { tmpDir });
      return { fields: body.fields, noBody: body.noBody };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(tmpDir, { recursive: true, force: true });
  });

  const post = (payload: string, type: string) => app.inject({ method: 'POST', url: '/echo', payload, headers: { 'content-type': type } });

  it('reads any form body as URLSearchParams does (last value wins), or refuses it with 400/5001', async () => {
    const key = fc.oneof(fc.constantFrom(...Object.keys(PARAM_MAX_CHARS)), fc.string({ maxLength: 12 }));
    const value = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: fc.constantFrom(' ', '\t', '-', '1', '%', '+', '&', '='), maxLength: 5000 }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, value), { maxLength: 300 }), async (pairs) => {
        const text = new URLSearchParams(pairs).toString();
        const res = await within(post(text, 'application/x-www-form-urlencoded'), 2_000, 'form body');
        const expected = Object.fromEntries(new URLSearchParams(text));
        cutTruncatedParams(expected); // names and descriptions are truncated, not refused
        const overlong = Object.entries(expected).some(([k, v]) => PARAM_MAX_CHARS[k] !== undefined && v.length > PARAM_MAX_CHARS[k]!);
        if (pairs.length > MAX_BODY_PARTS || overlong) {
          expect(res.statusCode).toBe(400);
          expect(res.json()).toMatchObject({ error_code: 5001 });
        } else {
          expect(res.statusCode).toBe(200);
          expect(res.json().fields).toEqual(expected);
          expect(res.json().noBody).toBe(text.trim() === '');
        }
      }),
      // Field names an object's prototype has (found by this property: `__proto__` used to be dropped).
      { numRuns: 200, examples: [[[['__proto__', '']]], [[['constructor', 'x'], ['toString', 'y'], ['hasOwnProperty', '']]]] },
    );
  });

  it('reads JSON objects within the depth bound and refuses deeper ones, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 40 }), fc.string({ maxLength: 200 })), async (value) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        const res = await within(post(text, 'application/json'), 2_000, 'JSON body');
        expect([200, 400]).toContain(res.statusCode);
      }),
      { numRuns: 300 },
    );
  });
});

describe('multipart file parts in memory or on disk', () => {
  let app: FastifyInstance;
  let tmpDir: string;
  beforeAll(async () => {
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'iris-body-files-'));
    app = Fastify({ bodyLimit: 16 * MEMORY_PART_BYTES });
    registerBodyHandling(app);
    registerErrorHandling(app);
    app.post('/files', async (request) => {
      const body = await readBody(request, { tmpDir });
      const parts = await Promise.all(body.files.map(async (f) => ({ field: f.field, inMemory: f.data !== null, hex: createHash('sha256').update((await body.bytes(f.field))!).digest('hex') })));
      return { parts };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(tmpDir, { recursive: true, force: true });
  });

  it('hands over every part byte for byte, in memory up to MEMORY_PART_BYTES and from a temp file beyond, and gives the memory back', async () => {
    // Sizes around the memory bound (where a part is spilled with what was held) and small ones.
    const size = fc.oneof(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: MEMORY_PART_BYTES - 70_000, max: MEMORY_PART_BYTES + 70_000 }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(size, fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), async (specs) => {
        const files = specs.map(([n, seed]) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 131 + seed) & 0xff)));
        const body = multipart(Object.fromEntries(files.map((content, i) => [`f${i}`, { filename: `${i}.bin`, content }])));
        const res = await within(app.inject({ method: 'POST', url: '/files', payload: body.payload, headers: body.headers }), 10_000, 'multipart body');
        expect(res.statusCode).toBe(200);
        expect(res.json().parts).toEqual(files.map((content, i) => ({ field: `f${i}`, inMemory: content.length <= MEMORY_PART_BYTES, hex: createHash('sha256').update(content).digest('hex') })));
        expect(uploadMemoryInUse()).toBe(0);
      }),
      { numRuns: 25 },
    );
  });

  it('answers a cut or corrupted multipart body with 200 or 400, never 500, and gives every byte of memory back', async () => {
    const file = Buffer.from(Array.from({ length: 48 * 1024 }, (_, i) => (i * 7) & 0xff));
    const valid = multipart({ a: { filename: 'a.bin', content: file }, b: { filename: 'b.bin', content: file }, note: 'text' });
    const damage = fc.oneof(
      fc.record({ cut: fc.integer({ min: 0, max: valid.payload.length }) }),
      fc.record({ at: fc.integer({ min: 0, max: valid.payload.length - 1 }), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
    );
    await fc.assert(
      fc.asyncProperty(damage, async (d) => {
        const payload = Buffer.from(valid.payload);
        const body = 'cut' in d ? payload.subarray(0, d.cut) : Buffer.concat([payload.subarray(0, d.at), Buffer.from(d.bytes), payload.subarray(d.at + d.bytes.length)]);
        const res = await within(app.inject({ method: 'POST', url: '/files', payload: body, headers: valid.headers }), 10_000, 'damaged multipart body');
        expect([200, 400]).toContain(res.statusCode);
        await waitUntil(async () => uploadMemoryInUse(), (bytes) => bytes === 0, 5_000);
      }),
      { numRuns: 60 },
    );
  });
});
