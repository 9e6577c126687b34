/**
 * Request bodies are held once and counted: the isolate's body ledger (`bodyMemory`) sees at most one copy
 * of a body per call, refuses calls beyond EDGE_BODY_MEMORY_MB with 503/9006, and is back to zero after every
 * call, answered or refused. Multipart text fields are capped in all before they are held.
 */
import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newResourceId, sha256Hex } from '@iris/shared';
import { hmacSha1Base64, hmacSha1Base64Parts, stringToSign } from '../auth/signature.js';
import { callJson, newAccount, signedHeaders, type BackendEcho, type TestAccount } from '../../test/helpers.js';
import { bodyMemory } from './body-memory.js';
import { MultipartFieldStream } from './multipart-stream.js';
import { MAX_TEXT_FIELDS_BYTES, multipartTextFields } from './multipart.js';
import { RequestBody } from './request-body.js';

const encoder = new TextEncoder();
const MB = 1024 * 1024;

let signer: TestAccount;
beforeAll(async () => {
  signer = await newAccount({ signatureRequired: true });
});
beforeEach(() => bodyMemory.resetPeak());

function errorCode(body: unknown): number | undefined {
  const b = body as { error_code?: number; data?: { error_code?: number } };
  return b.error_code ?? b.data?.error_code;
}

function streamOf(bytes: Uint8Array, size = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

function multipart(parts: ({ name: string; value: string } | { name: string; file: Uint8Array })[]): { body: Uint8Array; contentType: string } {
  const boundary = `----iris${newResourceId(16)}`;
  const pieces: Uint8Array[] = [];
  for (const part of parts) {
    if ('value' in part) pieces.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    else pieces.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="f.bin"\r\n\r\n`), part.file, encoder.encode('\r\n'));
  }
  pieces.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of pieces) {
    body.set(p, offset);
    offset += p.byteLength;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('request bodies in the isolate', () => {
  it('holds a signed 8 MB multipart body read whole once, and gives the memory back', async () => {
    const form = multipart([{ name: 'description', value: 'é'.repeat(10) }, { name: 'image', file: new Uint8Array(8 * MB).fill(5) }]);
    const headers = await signedHeaders(signer, { params: [['description', 'é'.repeat(10)]] });
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...headers, 'content-type': form.contentType, 'content-length': String(form.body.byteLength) },
      body: streamOf(form.body),
      env: { EDGE_STREAM_MIN_BYTES: String(64 * MB) },
    });
    expect(res.status).toBe(200);
    expect(res.body.body_sha256).toBe(await sha256Hex(form.body));
    expect(bodyMemory.peak).toBe(form.body.byteLength);
    expect(bodyMemory.inUse).toBe(0);
  }, 60_000);

  it('refuses a body that is not multipart past 1 MB before reading it (as the backend does); a signed 1 MB JSON body passes', async () => {
    const big = encoder.encode(JSON.stringify({ ids: 'x'.repeat(2 * MB) }));
    const refused = await callJson('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer)), 'content-type': 'application/json', 'content-length': String(big.byteLength) },
      body: streamOf(big),
    });
    expect(refused.status).toBe(413);
    expect(errorCode(refused.body)).toBe(1110);
    expect(bodyMemory.peak).toBe(0);
    const text = JSON.stringify({ description: 'é✓', ids: 'x'.repeat(MB - 100) });
    const ok = await callJson<BackendEcho>('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer, { jsonBody: text })), 'content-type': 'application/json', 'content-length': String(encoder.encode(text).byteLength) },
      body: streamOf(encoder.encode(text)),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.verified).toBe(true);
    expect(bodyMemory.peak).toBe(encoder.encode(text).byteLength);
    expect(bodyMemory.inUse).toBe(0);
  }, 60_000);

  it('counts a chunked body (no Content-Length) at most twice, only while its chunks are joined', async () => {
    const form = multipart([{ name: 'image', file: new Uint8Array(3 * MB).fill(9) }]);
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer)), 'content-type': form.contentType },
      body: streamOf(form.body),
    });
    expect(res.status).toBe(200);
    expect(res.body.body_length).toBe(form.body.byteLength);
    expect(bodyMemory.peak).toBeLessThanOrEqual(2 * form.body.byteLength);
    expect(bodyMemory.inUse).toBe(0);
  }, 60_000);

  it('answers 503/9006 when the isolate budget is spent, gives the memory back, and serves smaller bodies', async () => {
    const small = { EDGE_BODY_MEMORY_MB: '3', EDGE_STREAM_MIN_BYTES: String(64 * MB) };
    const big = multipart([{ name: 'image', file: new Uint8Array(4 * MB) }]);
    const refused = await callJson('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer)), 'content-type': big.contentType, 'content-length': String(big.body.byteLength) },
      body: streamOf(big.body),
      env: small,
    });
    expect(refused.status).toBe(503);
    expect(errorCode(refused.body)).toBe(9006);
    expect(bodyMemory.inUse).toBe(0);
    const fits = multipart([{ name: 'image', file: new Uint8Array(2 * MB) }]);
    const ok = await callJson('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer)), 'content-type': fits.contentType, 'content-length': String(fits.body.byteLength) },
      body: streamOf(fits.body),
      env: small,
    });
    expect(ok.status).toBe(200);
    expect(bodyMemory.inUse).toBe(0);
  }, 60_000);

  it('reads a streamed batch upload whole into one buffer of its declared length', async () => {
    const form = multipart([{ name: 'file', file: new Uint8Array(3 * MB).fill(7) }, { name: 'service_id', value: '_0000049' }]);
    const res = await callJson<BackendEcho>('/batch/_1000001/task/prepare', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer, { params: [['service_id', '_0000049']] })), 'content-type': form.contentType, 'content-length': String(form.body.byteLength) },
      body: streamOf(form.body),
    });
    expect(res.status).toBe(200);
    expect(res.body.body_sha256).toBe(await sha256Hex(form.body));
    expect(bodyMemory.peak).toBeLessThanOrEqual(form.body.byteLength);
    expect(bodyMemory.inUse).toBe(0);
  }, 60_000);

  it('refuses multipart text fields over 8 MB in all (413) before a signature is computed over them; the streaming reader stops at the cap too', async () => {
    const field = 'v'.repeat(MB - 100);
    const form = multipart(Array.from({ length: 9 }, (_, i) => ({ name: `f${i}`, value: field })));
    const res = await callJson('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...(await signedHeaders(signer)), 'content-type': form.contentType, 'content-length': String(form.body.byteLength) },
      body: streamOf(form.body),
      env: { EDGE_STREAM_MIN_BYTES: String(64 * MB) },
    });
    expect(res.status).toBe(413);
    expect(errorCode(res.body)).toBe(1110);
    expect(bodyMemory.inUse).toBe(0);
    const stream = new MultipartFieldStream(form.contentType.split('boundary=')[1]!);
    let fed = 0;
    const feed = () => {
      for (; fed < form.body.byteLength; fed += 64 * 1024) stream.push(form.body.subarray(fed, fed + 64 * 1024));
    };
    expect(feed).toThrow(/at most/);
    expect(fed).toBeLessThan(form.body.byteLength);
    expect(stream.fields.length).toBe(8);
  }, 60_000);

  it('property: text fields are refused exactly when their bytes pass the cap', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1024 * 1024 }), { minLength: 1, maxLength: 10 }), (sizes) => {
        const form = multipart(sizes.map((n, i) => ({ name: `f${i}`, value: 'a'.repeat(n) })));
        const boundary = form.contentType.split('boundary=')[1]!;
        const total = sizes.reduce((a, b) => a + b, 0);
        if (total > MAX_TEXT_FIELDS_BYTES) expect(() => multipartTextFields(form.body, boundary)).toThrow(/at most/);
        else expect(multipartTextFields(form.body, boundary).map(([, v]) => v.length)).toEqual(sizes);
      }),
      { numRuns: 8 },
    );
  }, 120_000);

  it('property: the signature over a JSON body computed on its bytes equals the one over its decoded text', async () => {
    const secret = fc.string({ minLength: 1, maxLength: 100 });
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => Uint8Array.from([0x7b, ...b])),
      fc.string({ unit: 'grapheme', maxLength: 100 }).map((s) => encoder.encode(`{"a":"${s}"}`)),
      fc.string({ maxLength: 50 }).map((s) => Uint8Array.from([0xef, 0xbb, 0xbf, ...encoder.encode(`{"b":"${s}"}`)])),
    );
    await fc.assert(
      fc.asyncProperty(secret, bytes, fc.string({ maxLength: 40 }), async (key, body, value) => {
        const parsed = new RequestBody(body, 'application/json', []).json!;
        const params: [string, string][] = [['x', value]];
        const headers = { 'x-ca-accesskeyid': 'k' };
        const text = new TextDecoder().decode(body);
        const expected = await hmacSha1Base64(key, stringToSign({ headers, params, jsonBody: text }));
        const prefix = encoder.encode(stringToSign({ headers, params }));
        expect(await hmacSha1Base64Parts(key, [prefix, parsed.signed])).toBe(expected);
      }),
      { numRuns: 150 },
    );
  });
});
