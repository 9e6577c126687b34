/**
 * Pictures from files on a real backend (real PostgreSQL, real decoder workers, real blob store, real HTTP
 * for the aborted upload): stored under a stable URL, idempotent, refused in the resource error shape when
 * hostile, leaving nothing behind.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, SERVICES, newResourceId, signInternal, type ForwardContext } from '@iris/shared';
import { hugeCanvasPng, photoJpeg } from '../../../test/support/test-images.js';
import { TEST_SECRET, multipart, startTestBackend, type TestBackend } from '../../../test/support/test-app.js';
import { waitUntil } from '../../../test/support/wait-for.js';
import { uploadMemoryInUse } from '../../http/request-body.js';

const MAX_BYTES = 3_000_000;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('pictures from files', () => {
  let backend: TestBackend;
  let base: string;
  let photo: Buffer;
  const imageSet = newResourceId();
  const productSet = newResourceId();

  const upload = (kind: string, id: string, parts: Parameters<typeof multipart>[0], accountId = 1) => {
    const body = multipart(parts);
    return backend.call({ method: 'POST', url: `/iris/${kind}/${id}/files`, payload: body.payload, headers: body.headers, accountId });
  };
  const records = async (kind: string, id: string) => {
    const res = await backend.call({ method: 'GET', url: `/iris/${kind}/${id}/records?count=100` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { n_items: number; results: { url: string; status: string; meta: string; product_id: string; width: number }[] };
  };

  beforeAll(async () => {
    backend = await startTestBackend({ IRIS_FETCH_MAX_BYTES: String(MAX_BYTES), IRIS_PUBLIC_EDGE_URL: 'http://cn-east.iris.test:8787' }, { workers: true });
    base = 'http://cn-east.iris.test:8787';
    photo = await photoJpeg(320, 240, 7);
    expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: imageSet, payload: { name: 'files' } })).statusCode).toBe(200);
    expect((await backend.call({ method: 'POST', url: '/product_sets/_0000178', resourceId: productSet, payload: { name: 'catalogue' } })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('stores a picture under a stable URL; the same file again changes only its attributes', async () => {
    const first = await upload('image_sets', imageSet, { file: { filename: 'beach.jpg', content: photo, contentType: 'image/jpeg' }, name: 'holiday\\..\\beach.jpg', meta: 'sea', tags: 'a|b' });
    expect(first.statusCode, first.body).toBe(200);
    const url = `${base}/iris/files/${sha(photo)}/holiday/beach.jpg`;
    expect(first.json()).toMatchObject({ url, stored: true, width: 320, height: 240 });

    const again = await upload('image_sets', imageSet, { file: { filename: 'beach.jpg', content: photo }, name: 'holiday/beach.jpg', meta: 'sea again' });
    expect(again.json()).toMatchObject({ url, stored: false });
    const other = await upload('image_sets', imageSet, { file: { filename: 'copy of beach.jpg', content: photo } });
    expect(other.json()).toMatchObject({ url: `${base}/iris/files/${sha(photo)}/copy%20of%20beach.jpg`, stored: true });

    const listed = await records('image_sets', imageSet);
    expect(listed.n_items).toBe(2);
    expect(listed.results.find((r) => r.url === url)).toMatchObject({ status: 'downloaded', meta: 'sea again', width: 320 });

    const lookup = await backend.call({
      method: 'POST',
      url: `/iris/image_sets/${imageSet}/files/lookup`,
      payload: { files: [{ name: 'holiday/beach.jpg', sha256: sha(photo) }, { name: 'other.jpg', sha256: sha(photo) }] },
    });
    expect(lookup.statusCode, lookup.body).toBe(200);
    expect(lookup.json().results).toEqual([
      { name: 'holiday/beach.jpg', sha256: sha(photo), url, status: 'downloaded' },
      { name: 'other.jpg', sha256: sha(photo), url: `${base}/iris/files/${sha(photo)}/other.jpg`, status: null },
    ]);

    // A URL record like any other: deleted by its URL.
    const csv = multipart({ urls_to_delete: { filename: 'd.csv', content: `${url}\n` } });
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${imageSet}`, payload: csv.payload, headers: csv.headers })).statusCode).toBe(200);
    expect((await records('image_sets', imageSet)).results.map((r) => r.url)).not.toContain(url);
  });

  it('adds a product from a file, which needs its product_id', async () => {
    const missing = await upload('product_sets', productSet, { file: { filename: 'shoe.jpg', content: photo } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error_code: 5001 });
    const added = await upload('product_sets', productSet, { file: { filename: 'shoe.jpg', content: photo }, product_id: 'sku-9', price: '12.5' });
    expect(added.statusCode, added.body).toBe(200);
    expect((await records('product_sets', productSet)).results).toMatchObject([{ product_id: 'sku-9', status: 'downloaded' }]);
  });

  it('refuses hostile files in the resource error shape and stores nothing', async () => {
    const before = (await records('image_sets', imageSet)).n_items;
    const refusals: [Parameters<typeof multipart>[0], number, number][] = [
      [{ file: { filename: 'big.jpg', content: Buffer.alloc(MAX_BYTES + 1, 0xff) } }, 413, 1110],
      [{ file: { filename: 'cut.jpg', content: photo.subarray(0, Math.floor(photo.length / 3)) } }, 400, 5001],
      [{ file: { filename: 'page.jpg', content: '<html>not a picture</html>' } }, 400, 5001],
      [{ file: { filename: 'canvas.png', content: hugeCanvasPng() } }, 400, 5001],
      [{ file: { filename: 'a.jpg', content: photo }, name: 'bad\u0001name.jpg' }, 400, 5001],
      [{ file: { filename: 'a.jpg', content: photo }, name: '../ /..' }, 400, 5001],
      [{ file: 'text instead of a file' }, 400, 5001],
    ];
    for (const [parts, status, code] of refusals) {
      const res = await upload('image_sets', imageSet, parts);
      expect(res.statusCode, `${JSON.stringify(Object.keys(parts))}: ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject({ error_code: code, request_id: expect.any(String) });
    }
    expect((await upload('image_sets', 'nope', { file: { filename: 'a.jpg', content: photo } })).statusCode).toBe(404);
    // Another account's set does not exist for the caller.
    expect((await upload('image_sets', imageSet, { file: { filename: 'a.jpg', content: photo } }, 2)).statusCode).toBe(404);
    expect((await records('image_sets', imageSet)).n_items).toBe(before);
  });

  it('answers any name, meta and tags with a record or a 400, never a failure of its own', async () => {
    const junk = Buffer.from('GIF89a not really');
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.string({ maxLength: 600 }), fc.string({ maxLength: 80 }), fc.boolean(), async (name, meta, tags, real) => {
        const res = await upload('image_sets', imageSet, { file: { filename: 'f.jpg', content: real ? photo : junk }, name, meta, tags });
        expect([200, 400], res.body).toContain(res.statusCode);
        if (res.statusCode === 400) expect(res.json()).toMatchObject({ error_code: 5001 });
        else {
          const { url } = res.json() as { url: string };
          expect(url.startsWith(`${base}/iris/files/${sha(photo)}/`)).toBe(true);
          expect(url.length).toBeLessThanOrEqual(512);
          expect(decodeURIComponent(new URL(url).pathname).split('/')).not.toContain('..');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('leaves no temp file and no open descriptor behind an upload aborted midway', async () => {
    await backend.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = backend.app.server.address() as AddressInfo;
    const body = multipart({ file: { filename: 'big.jpg', content: Buffer.alloc(2_900_000, 0xd8) } });
    const path = `/iris/image_sets/${imageSet}/files`;
    const context: ForwardContext = { requestId: newResourceId(16), lang: 'en', quotas: { ...DEFAULT_QUOTAS }, services: SERVICES.map((s) => s.id) };
    const signed = await signInternal(TEST_SECRET, { method: 'POST', pathWithQuery: path, accountId: 1, context, body: body.payload });
    const uploadDir = backend.config.uploadDir;
    const openUploads = () => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(uploadDir);
      } catch {
        return false;
      }
    });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const head = [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', `content-type: ${body.headers['content-type']}`, `content-length: ${body.payload.length}`, ...Object.entries(signed).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.write(body.payload.subarray(0, 2_500_000));
    // Past the in-memory size the part spills to a temp file: the abort comes while it is open.
    await waitUntil(async () => openUploads().length, (n) => n > 0, 30_000);
    socket.destroy();
    await waitUntil(async () => ({ dirs: existsSync(uploadDir) ? readdirSync(uploadDir) : [], fds: openUploads(), memory: uploadMemoryInUse() }),
      (s) => s.dirs.length === 0 && s.fds.length === 0 && s.memory === 0,
      30_000,
    );
  });
});
