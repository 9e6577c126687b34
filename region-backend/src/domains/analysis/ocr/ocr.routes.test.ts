/** The OCR services over HTTP: a real backend (PostgreSQL, worker threads) called the way the edge calls it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestBackend, type TestBackend } from '../../../../test/support/test-app.js';
import type { FixtureIndex } from '../../../../test/fixtures/ocr/make-fixtures.js';

const FIXTURES = path.join(import.meta.dirname, '../../../../test/fixtures/ocr');
const index = JSON.parse(readFileSync(path.join(FIXTURES, 'fixtures.json'), 'utf8')) as FixtureIndex;

describe('OCR services over HTTP', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });

  const upload = (name: string, fields: Record<string, string> = {}) =>
    multipart({ ...fields, search: { filename: name, content: readFileSync(path.join(FIXTURES, name)), contentType: 'image/png' } });

  it('answers text lines in the detect envelope, boxes of a loc crop mapped onto the whole picture', async () => {
    const mp = upload('text-en.png');
    const res = await backend.call({ method: 'POST', url: '/detect/_0000154', payload: mp.payload, headers: mp.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ver: '1.0', request_id: expect.any(String), detecttime: expect.any(String), time: expect.any(String) });
    // Spaces between words are the recogniser's weak point (docs/ocr.md); the characters must be exact.
    const squeeze = (lines: string[]) => lines.map((l) => l.replace(/\s+/g, ''));
    expect(squeeze(body.boxes_detected.map((b: { type: string }) => b.type))).toEqual(squeeze(index.text['text-en.png']!.lines));

    const lower = upload('text-en.png', { loc: '0-0.5-1-0.5' });
    const cropped = await backend.call({ method: 'POST', url: '/detect/_0000154', payload: lower.payload, headers: lower.headers });
    const items = cropped.json().boxes_detected as { box: number[]; type: string }[];
    expect(squeeze(items.map((i) => i.type))).toEqual(squeeze(index.text['text-en.png']!.lines.slice(2)));
    for (const { box } of items) expect(box[1]).toBeGreaterThanOrEqual(0.5);
  });

  it('answers the four receipt fields of a Chinese slip', async () => {
    const mp = upload('receipt-zh.png');
    const res = await backend.call({ method: 'POST', url: '/detect/_0000143', payload: mp.payload, headers: mp.headers, lang: 'zh' });
    expect(res.statusCode).toBe(200);
    const { fields } = index.receipts['receipt-zh.png']!;
    expect(res.json().boxes_detected).toEqual(Object.entries(fields).map(([type, value]) => ({ type, value, score: 0 })));
  });
});
