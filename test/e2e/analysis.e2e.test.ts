/**
 * Ready-made analysis through the whole platform: the operator registers a logo through the edge's admin
 * API, a customer finds it with _0000188, and reads text and receipt fields with _0000154 / _0000143.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ClassifyResponse, ColorResponse, DressingResponse, TaggingResponse } from '@iris/shared';
import { iou, type Box } from '../../region-backend/src/vision/logo/logo-geometry.js';
import { clutterBackground, encodePng, placeLogo, renderLogo } from '../../region-backend/test/support/logo-fixtures.js';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

const OCR_FIXTURES = path.resolve(import.meta.dirname, '../../region-backend/test/fixtures/ocr');
const ocrTruth = JSON.parse(readFileSync(path.join(OCR_FIXTURES, 'fixtures.json'), 'utf8')) as {
  text: Record<string, { lines: string[] }>;
  receipts: Record<string, { fields: Record<string, string> }>;
};

/** The answer is exactly what the schema describes: nothing missing, nothing the schema would drop. */
function expectExactly(schema: z.ZodTypeAny, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  expect(parsed.success && parsed.data).toEqual(body);
}

interface BoxItem {
  box: Box;
  puid?: string;
  score: number;
  type: string;
  value?: string | null;
}

function upload(field: string, name: string, bytes: Buffer, extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(extra)) form.append(key, value);
  form.append(field, new Blob([bytes], { type: 'image/png' }), name);
  return form;
}

describe('ready-made analysis end to end: edge → backend → inference threads', () => {
  let platform: PlatformFixture;
  let scene: Buffer;
  let sceneBox: Box;

  beforeAll(async () => {
    platform = await sharedPlatformFixture('analysis');
    const background = await clutterBackground('e2e-scene', 800, 600);
    const logo = (await renderLogo('e2e-kestrel', { word: 'KESTREL' })).png;
    const placed = await placeLogo(background, logo, { cx: 0.55, cy: 0.5, width: 0.45, rotation: -8, tilt: 0.05 });
    scene = await encodePng(placed.image);
    sceneBox = placed.box;

    // The operator registers the brand in cn-east through the edge (admin token, multipart artwork).
    const registered = await fetch(`${platform.edgeUrl}/admin/regions/cn-east/logos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminToken}` },
      body: upload('images', 'kestrel.png', logo, { brand: 'Kestrel', brand_zh: '红隼' }),
    });
    expect(registered.status).toBe(200);
    expect(await registered.json()).toMatchObject({ brand: 'Kestrel', brand_zh: '红隼', n_images: 1 });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('finds the registered logo, labelled in the caller’s language; the other region has no such brand', async () => {
    const res = await platform.call('/detect/_0000188', { method: 'POST', headers: { 'accept-language': 'zh-CN' }, body: upload('search', 'scene.png', scene) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { boxes_detected: BoxItem[]; ver: string };
    expect(body.boxes_detected).toHaveLength(1);
    expect(body.boxes_detected[0]).toMatchObject({ type: '红隼', puid: expect.stringMatching(/^logo-\d+$/) });
    expect(iou(body.boxes_detected[0]!.box, sceneBox)).toBeGreaterThanOrEqual(0.5);

    const elsewhere = await platform.call('/detect/_0000188', { method: 'POST', host: 'ap-southeast.localhost', ...multipartInit(scene) });
    expect(elsewhere.status).toBe(200);
    expect(((await elsewhere.json()) as { boxes_detected: unknown[] }).boxes_detected).toEqual([]);
  });

  it('keeps the logo library out of customers’ reach', async () => {
    const res = await platform.call('/admin/regions/cn-east/logos');
    expect(res.status).toBe(401);
  });

  it('answers each analysis family in its own shape, fashion analysis of a picture without people included', async () => {
    const noPeople = await encodePng(await clutterBackground('e2e-no-people', 640, 480));
    const dressing = await platform.call('/dressing/_0000111', { method: 'POST', body: upload('search', 'room.png', noPeople) });
    expect(dressing.status).toBe(200);
    const fashion = (await dressing.json()) as z.infer<typeof DressingResponse>;
    expectExactly(DressingResponse, fashion);
    expect(fashion.results).toEqual([]);
    expect(fashion).toHaveProperty('labels');
    expect(fashion).toHaveProperty('labels-en');

    const tagging = await platform.call('/classify/_0000159', { method: 'POST', body: upload('search', 'room.png', noPeople) });
    expect(tagging.status).toBe(200);
    expectExactly(TaggingResponse, await tagging.json());
    const scene = await platform.call('/classify/_0000039', { method: 'POST', body: upload('search', 'room.png', noPeople) });
    expect(scene.status).toBe(200);
    expectExactly(ClassifyResponse, await scene.json());
    const colour = await platform.call('/color/_0000072', { method: 'POST', body: upload('search', 'room.png', noPeople, { granularity: 'major', return_type: 'basic' }) });
    expect(colour.status).toBe(200);
    expectExactly(ColorResponse, await colour.json());
  });

  it('reads lines of text and the fields of a card slip', async () => {
    const text = await platform.call('/detect/_0000154', { method: 'POST', body: upload('search', 'text-en.png', readFileSync(path.join(OCR_FIXTURES, 'text-en.png'))) });
    expect(text.status).toBe(200);
    const lines = ((await text.json()) as { boxes_detected: BoxItem[] }).boxes_detected;
    const compact = (t: string) => t.normalize('NFKC').replace(/\s+/g, '').toLowerCase();
    expect(lines.map((l) => compact(l.type))).toEqual(ocrTruth.text['text-en.png']!.lines.map(compact));

    const slip = await platform.call('/detect/_0000143', { method: 'POST', body: upload('search', 'receipt-zh.png', readFileSync(path.join(OCR_FIXTURES, 'receipt-zh.png'))) });
    expect(slip.status).toBe(200);
    const fields = ((await slip.json()) as { boxes_detected: BoxItem[] }).boxes_detected;
    expect(Object.fromEntries(fields.map((f) => [f.type, f.value]))).toEqual(ocrTruth.receipts['receipt-zh.png']!.fields);
    expect(fields.every((f) => f.score === 0)).toBe(true);
  });
});

/** A multipart body as raw bytes (for the node:http path used when the Host header is overridden). */
function multipartInit(image: Buffer): { headers: Record<string, string>; body: Buffer } {
  const boundary = '----iris-e2e-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="search"; filename="scene.png"\r\nContent-Type: image/png\r\n\r\n`),
    image,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
}
