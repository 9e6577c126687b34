/**
 * The operator's logo API and logo detection (_0000188) on a real backend: real PostgreSQL, real inference
 * threads running OpenCV, a second backend process on the same database.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { newResourceId } from '@iris/shared';
import { buildApp } from '../../app.js';
import { logoHandler } from '../analysis/logo/logo.handler.js';
import { iou, type Box } from '../../vision/logo/logo-geometry.js';
import { clutterBackground, encodePng, placeLogo, renderLogo } from '../../../test/support/logo-fixtures.js';
import { InferencePool } from '../../inference/inference-pool.js';
import { callSigned, startTestBackend, type CallInput, type TestBackend } from '../../../test/support/test-app.js';

type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer };

/** A multipart body whose field names may repeat (several `images`). */
function multipartParts(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----iris${newResourceId(12)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: image/png\r\n\r\n`));
      chunks.push(part.content, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

interface BoxItem {
  box: Box;
  puid: string;
  score: number;
  type: string;
}

let backend: TestBackend;
let kestrel: Buffer;
let lumen: Buffer;
let scene: Buffer;
let sceneBox: Box;
let empty: Buffer;

const operator = (input: Omit<CallInput, 'accountId'>) => backend.call({ ...input, accountId: 0 });

function register(parts: Part[], app?: FastifyInstance) {
  const body = multipartParts(parts);
  const input = { method: 'POST', url: '/admin/logos', accountId: 0, payload: body.payload, headers: body.headers };
  return app ? callSigned(app, input) : backend.call(input);
}

function detect(image: Buffer, options: { lang?: 'en' | 'zh'; app?: FastifyInstance } = {}) {
  const body = multipartParts([{ name: 'search', filename: 'query.png', content: image }]);
  const input: CallInput = { method: 'POST', url: '/detect/_0000188', payload: body.payload, headers: body.headers, lang: options.lang ?? 'en' };
  return options.app ? callSigned(options.app, input) : backend.call(input);
}

beforeAll(async () => {
  backend = await startTestBackend();
  kestrel = (await renderLogo('routes-kestrel', { word: 'KESTREL' })).png;
  lumen = (await renderLogo('routes-lumen', { word: 'LUMEN', transparent: true })).png;
  const background = await clutterBackground('routes-scene', 800, 600);
  const placed = await placeLogo(background, kestrel, { cx: 0.4, cy: 0.45, width: 0.4, rotation: 12, tilt: 0.1 });
  scene = await encodePng(placed.image);
  sceneBox = placed.box;
  empty = await encodePng(background);
});

afterAll(async () => {
  await backend?.close();
});

describe('logo API and detection', () => {
  it('refuses every operator route to other accounts, before reading anything', async () => {
    for (const [method, url] of [['GET', '/admin/logos'], ['POST', '/admin/logos'], ['GET', '/admin/logos/1'], ['DELETE', '/admin/logos/1']] as const) {
      const res = await backend.call({ method, url, accountId: 7 });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({ error_code: 1108, request_id: expect.any(String) });
    }
    const body = multipartParts([{ name: 'brand', value: 'Sneaky' }, { name: 'images', filename: 'k.png', content: kestrel }]);
    const sneaky = await backend.call({ method: 'POST', url: '/admin/logos', accountId: 7, payload: body.payload, headers: body.headers });
    expect(sneaky.statusCode).toBe(404);
    expect((await operator({ method: 'GET', url: '/admin/logos' })).json().results).toEqual([]);
  });

  it('answers an empty list while no logo is registered, without touching the inference pool', async () => {
    const res = await detect(scene);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ boxes_detected: [], request_id: expect.any(String), ver: '2.0', image_id: expect.any(String) });
    expect(typeof res.json().detecttime).toBe('string');
    // A closed pool fails every task: an empty library must not need one.
    const closed = new InferencePool(1);
    await closed.close();
    const rgb = { data: new Uint8Array(64 * 64 * 3), width: 64, height: 64 };
    await expect(logoHandler.run({ pool: closed, db: backend.app.db.pool }, { rgb, encoded: new Uint8Array(), params: {}, lang: 'en' })).resolves.toEqual({ boxes_detected: [] });
  });

  it('registers a brand from reference images and finds it in a picture, labelled in the caller’s language', async () => {
    const res = await register([
      { name: 'brand', value: 'Kestrel' },
      { name: 'brand_zh', value: '红隼' },
      { name: 'images', filename: 'kestrel.png', content: kestrel },
    ]);
    expect(res.statusCode).toBe(200);
    const brand = res.json();
    expect(brand).toMatchObject({ id: expect.any(Number), brand: 'Kestrel', brand_zh: '红隼', n_images: 1, request_id: expect.any(String) });
    expect(brand.puid).toBe(`logo-${brand.id}`);
    expect(brand.images[0]).toMatchObject({ filename: 'kestrel.png', n_keypoints: expect.any(Number) });
    expect(brand.images[0].n_keypoints).toBeGreaterThan(100);

    const list = await operator({ method: 'GET', url: '/admin/logos' });
    expect(list.json().results).toEqual([expect.objectContaining({ id: brand.id, brand: 'Kestrel', n_images: 1 })]);

    const found = await detect(scene);
    expect(found.statusCode).toBe(200);
    const boxes = found.json().boxes_detected as BoxItem[];
    expect(boxes).toHaveLength(1);
    expect(boxes[0]).toMatchObject({ puid: `logo-${brand.id}`, type: 'Kestrel' });
    expect(boxes[0]!.score).toBeGreaterThan(0.3);
    expect(iou(boxes[0]!.box, sceneBox)).toBeGreaterThanOrEqual(0.5);

    const zh = await detect(scene, { lang: 'zh' });
    expect((zh.json().boxes_detected as BoxItem[])[0]!.type).toBe('红隼');

    expect((await detect(empty)).json().boxes_detected).toEqual([]);
  });

  it('adds artwork to a brand registered under the same name, and keeps brands apart', async () => {
    const before = (await operator({ method: 'GET', url: '/admin/logos' })).json().results[0];
    const more = await register([
      { name: 'brand', value: 'KESTREL' },
      { name: 'images', filename: 'a.png', content: kestrel },
      { name: 'images', filename: 'b.png', content: await sharp(kestrel).resize(300).png().toBuffer() },
    ]);
    expect(more.statusCode).toBe(200);
    expect(more.json()).toMatchObject({ id: before.id, brand: 'Kestrel', brand_zh: '红隼', n_images: 3 });

    const other = await register([{ name: 'brand', value: 'Lumen' }, { name: 'images', filename: 'lumen.png', content: lumen }]);
    expect(other.json()).toMatchObject({ brand: 'Lumen', brand_zh: null, n_images: 1 });
    const boxes = (await detect(scene)).json().boxes_detected as BoxItem[];
    expect(boxes.map((b) => b.type)).toEqual(['Kestrel']);
    await operator({ method: 'DELETE', url: `/admin/logos/${other.json().id}` });
  });

  it('refuses unusable registrations and stores nothing of them', async () => {
    const count = async () => (await operator({ method: 'GET', url: '/admin/logos' })).json().results.length;
    const before = await count();
    const plain = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#2255aa' } }).png().toBuffer();
    const cases: [Part[], RegExp][] = [
      [[{ name: 'images', filename: 'k.png', content: kestrel }], /brand is required/],
      [[{ name: 'brand', value: 'Nothing' }], /at least one reference image/],
      [[{ name: 'brand', value: 'Broken' }, { name: 'images', filename: 'x.png', content: Buffer.from('not an image at all') }], /x\.png/],
      [[{ name: 'brand', value: 'Plain' }, { name: 'images', filename: 'k.png', content: kestrel }, { name: 'images', filename: 'plain.png', content: plain }], /plain\.png: .*texture/],
      [[{ name: 'brand', value: 'x'.repeat(65) }, { name: 'images', filename: 'k.png', content: kestrel }], /at most 64/],
    ];
    for (const [parts, message] of cases) {
      const res = await register(parts);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error_code: 5001 });
      expect(res.json().message).toMatch(message);
    }
    expect(await count()).toBe(before);
    expect((await operator({ method: 'DELETE', url: '/admin/logos/999999' })).statusCode).toBe(404);
    expect((await operator({ method: 'GET', url: '/admin/logos/abc' })).statusCode).toBe(404);
  });

  it('shares the library with every backend process of the region', async () => {
    const second = await buildApp(backend.config, { workers: false, logger: false });
    await second.ready();
    try {
      const brand = (await operator({ method: 'GET', url: '/admin/logos' })).json().results[0];
      const seen = (await detect(scene, { app: second })).json().boxes_detected as BoxItem[];
      expect(seen.map((b) => b.puid)).toEqual([`logo-${brand.id}`]);

      const gone = await callSigned(second, { method: 'DELETE', url: `/admin/logos/${brand.id}`, accountId: 0 });
      expect(gone.statusCode).toBe(204);
      expect((await detect(scene)).json().boxes_detected).toEqual([]);
      expect((await operator({ method: 'GET', url: `/admin/logos/${brand.id}` })).statusCode).toBe(404);
    } finally {
      await second.close();
    }
  });
});
