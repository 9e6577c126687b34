/**
 * Streamed uploads in the Workers runtime: a multipart body at or above EDGE_STREAM_MIN_BYTES goes on to the
 * (loopback) backend as it arrives, its text fields read on the way for the signature; a refused call
 * answers the signature error and the backend sees a broken body (nothing stored).
 */
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { newResourceId, sha256Hex } from '@iris/shared';
import { callJson, keyHeaders, newAccount, seedResource, signedHeaders, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let signer: TestAccount;
beforeAll(async () => {
  signer = await newAccount({ signatureRequired: true });
});

const encoder = new TextEncoder();
const MB = 1024 * 1024;

type Part = { name: string; value: string } | { name: string; filename: string; bytes: Uint8Array };

function multipartBody(parts: Part[], boundary = `----iris${newResourceId(16)}`): { body: Uint8Array; contentType: string } {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    if ('value' in part) chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    else {
      chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: image/jpeg\r\n\r\n`));
      chunks.push(part.bytes, encoder.encode('\r\n'));
    }
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.byteLength;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The body as a network stream would deliver it: 64 KB chunks. */
function chunked(body: Uint8Array, size = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.byteLength) return controller.close();
      controller.enqueue(body.slice(offset, offset + size));
      offset += size;
    },
  });
}

function photo(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

function errorCode(body: unknown): number | undefined {
  const b = body as { error_code?: number; data?: { error_code?: number } };
  return b.error_code ?? b.data?.error_code;
}

/** What the backend made of a probed call, once it has seen the end of it (a broken connection included). */
async function probe(id: string): Promise<{ state: string; length?: number }> {
  for (let i = 0; ; i++) {
    const seen = (await (await fetch(`${env.BACKEND_URL_CN_EAST}/__probe/${id}`)).json()) as { state: string; length?: number };
    if (seen.state !== 'none' || i === 50) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface UploadOptions {
  path?: string;
  headers?: Record<string, string>;
  streamMinBytes?: number;
}

function upload(parts: { body: Uint8Array; contentType: string }, options: UploadOptions = {}) {
  return callJson<BackendEcho>(options.path ?? '/bad_cases/_0000204', {
    method: 'POST',
    headers: { 'content-type': parts.contentType, 'content-length': String(parts.body.byteLength), ...options.headers },
    body: chunked(parts.body),
    env: options.streamMinBytes === undefined ? {} : { EDGE_STREAM_MIN_BYTES: String(options.streamMinBytes) },
  });
}

describe('streamed uploads', () => {
  it('streams a signed multipart upload to the backend intact, bound by its length and nonce', async () => {
    const image = photo(3 * MB);
    const form = multipartBody([
      { name: 'service_id', value: '_0000049' },
      { name: 'image', filename: 'photo.jpg', bytes: image },
      { name: 'request_id', value: 'r-42' },
    ]);
    const headers = await signedHeaders(signer, { params: [['service_id', '_0000049'], ['request_id', 'r-42']] });
    const res = await upload(form, { headers });
    expect(res.status).toBe(200);
    expect(res.body.verified).toBe(true);
    expect(res.body.account).toBe(signer.accountId);
    expect(res.body.body_length).toBe(form.body.byteLength);
    expect(res.body.body_sha256).toBe(await sha256Hex(form.body));
    // Streamed: the binding has the length but no hash; the backend got a Content-Length.
    expect(res.body.context?.body).toEqual({ length: form.body.byteLength });
    expect(res.body.headers['content-length']).toBe(String(form.body.byteLength));
    expect(res.body.busboy_fields).toEqual([
      ['service_id', '_0000049'],
      ['request_id', 'r-42'],
    ]);
  });

  it('keeps small uploads buffered (hash-bound) below EDGE_STREAM_MIN_BYTES', async () => {
    const form = multipartBody([{ name: 'image', filename: 'a.jpg', bytes: photo(200_000) }]);
    const res = await upload(form, { headers: keyHeaders(signer, await signedHeaders(signer)) });
    expect(res.status).toBe(200);
    expect(res.body.context?.body).toEqual({ length: form.body.byteLength, sha256: await sha256Hex(form.body) });
  });

  it('reads a signed field placed after the file part, and refuses it when that field was altered', async () => {
    const image = photo(2 * MB, 7);
    const params: [string, string][] = [['description', 'after the file']];
    const good = multipartBody([{ name: 'image', filename: 'a.jpg', bytes: image }, { name: 'description', value: 'after the file' }]);
    const ok = await upload(good, { headers: await signedHeaders(signer, { params }) });
    expect(ok.status).toBe(200);
    expect(ok.body.body_sha256).toBe(await sha256Hex(good.body));

    const altered = multipartBody([{ name: 'image', filename: 'a.jpg', bytes: image }, { name: 'description', value: 'after the filE' }]);
    const probeId = newResourceId(20);
    const refused = await upload(altered, { headers: { ...(await signedHeaders(signer, { params })), 'x-test-probe': probeId } });
    expect(refused.status).toBe(401);
    expect(errorCode(refused.body)).toBe(1104);
    expect((await probe(probeId)).state).not.toBe('complete');
  });

  it('answers a bad signature on a streamed upload like a buffered one, and the backend stores nothing', async () => {
    const form = multipartBody([{ name: 'service_id', value: '_0000049' }, { name: 'image', filename: 'a.jpg', bytes: photo(3 * MB, 3) }]);
    const bad = { ...(await signedHeaders(signer, { params: [['service_id', '_0000024']] })) };
    const streamedProbe = newResourceId(20);
    const streamed = await upload(form, { headers: { ...bad, 'x-test-probe': streamedProbe } });
    const buffered = await upload(form, { headers: { ...(await signedHeaders(signer, { params: [['service_id', '_0000024']] })) }, streamMinBytes: 64 * MB });
    expect(streamed.status).toBe(401);
    expect(errorCode(streamed.body)).toBe(1104);
    expect(streamed.status).toBe(buffered.status);
    expect(streamed.body).toMatchObject({ ...(buffered.body as object), request_id: expect.any(String) });
    const seen = await probe(streamedProbe);
    // The backend saw a broken (aborted) body or a short one it refused, never a complete upload.
    expect(['aborted', 'refused']).toContain(seen.state);
    expect(seen.length ?? 0).toBeLessThan(form.body.byteLength);
  });

  it('answers the signature error before any check of the route (no ownership oracle for a bad signature)', async () => {
    const stranger = await newAccount({ signatureRequired: true });
    const foreignSet = await seedResource('image_set', signer.accountId);
    const form = multipartBody([{ name: 'image', filename: 'a.jpg', bytes: photo(2 * MB, 5) }]);
    const path = `/image_sets/_0000014/${foreignSet}/images`;
    const forged = await upload(form, { path, headers: { ...(await signedHeaders(stranger, { params: [['x', 'y']] })) } });
    expect(forged.status).toBe(401);
    expect(errorCode(forged.body)).toBe(1104);
    const signed = await upload(form, { path, headers: await signedHeaders(stranger) });
    expect(signed.status).toBe(403);
    expect(errorCode(signed.body)).toBe(1002);
  });

  it('reads a whole upload when the route checks a body field (batch prepare: service_id after the file)', async () => {
    const form = multipartBody([{ name: 'file', filename: 'urls.csv', bytes: photo(MB + 5, 9) }, { name: 'service_id', value: '_0000049' }]);
    const res = await upload(form, { path: '/batch/_1000001/task/prepare', headers: await signedHeaders(signer, { params: [['service_id', '_0000049']] }) });
    expect(res.status).toBe(200);
    expect(res.body.context?.fields).toEqual({ service_id: '_0000049' });
    expect(res.body.context?.body?.sha256).toBe(await sha256Hex(form.body));
  });

  it('property: for generated bodies the edge reads the fields busboy reads (the signature over them passes)', async () => {
    const name = fc.constantFrom('service_id', 'request_id', 'description', 'a b', 'ü✓', 'details');
    const value = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constantFrom('\r\n--x', 'a\r\n\r\nb', '', ' padded '));
    const part = fc.oneof(
      fc.record({ name, value }),
      fc.record({ name, filename: fc.constantFrom('a.jpg', 'b.png'), size: fc.integer({ min: 0, max: 150_000 }), seed: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 70 }), async (generated, boundaryLength) => {
        const boundary = 'b'.repeat(boundaryLength - 1) + 'Z';
        const parts: Part[] = generated.map((p) => ('value' in p ? p : { name: p.name, filename: p.filename, bytes: photo(p.size, p.seed) }));
        if (parts.some((p) => 'value' in p && p.value.includes(`--${boundary}`))) return;
        const form = multipartBody(parts, boundary);
        const fields = parts.filter((p): p is { name: string; value: string } => 'value' in p).map((p): [string, string] => [p.name, p.value]);
        const res = await upload(form, { headers: await signedHeaders(signer, { params: fields }), streamMinBytes: 1 });
        expect(res.status).toBe(200);
        expect(res.body.context?.body).toEqual({ length: form.body.byteLength });
        expect(res.body.busboy_fields).toEqual(fields);
      }),
      { numRuns: 25 },
    );
  });
});
