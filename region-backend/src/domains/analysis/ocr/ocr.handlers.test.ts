/**
 * The two OCR services end to end on rendered fixtures (see fixtures/make-fixtures.ts), with the real
 * PP-OCR models in a real inference pool.
 */
import type { RgbImage } from '../../../images/rgb-image.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import type { AnalysisContext } from '../analysis-registry.js';
import type { FixtureIndex } from '../../../../test/fixtures/ocr/make-fixtures.js';
import { ocrReceiptHandler } from './ocr-receipt.handler.js';
import { ocrTextHandler, type TextItem } from './ocr-text.handler.js';

const FIXTURES = path.join(import.meta.dirname, '../../../../test/fixtures/ocr');
const index = JSON.parse(readFileSync(path.join(FIXTURES, 'fixtures.json'), 'utf8')) as FixtureIndex;

let pool: InferencePool;
let ctx: AnalysisContext;
beforeAll(() => {
  pool = new InferencePool(2);
  ctx = { pool };
});
afterAll(() => pool.close());

async function rgb(image: Sharp): Promise<RgbImage> {
  const { data, info } = await image.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}
const fixture = (name: string) => rgb(sharp(path.join(FIXTURES, name)));

async function readLines(image: RgbImage, lang: 'en' | 'zh' = 'en'): Promise<TextItem[]> {
  const out = await ocrTextHandler.run(ctx, { rgb: image, encoded: new Uint8Array(), params: {}, lang });
  return out.boxes_detected as TextItem[];
}

function cer(got: string, want: string): number {
  const a = [...got], b = [...want];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]! / b.length;
}

describe('text recognition (_0000154)', () => {
  it.each(['text-en.png', 'text-zh.png'])('reads %s: one normalised box per line, top to bottom', async (name) => {
    const truth = index.text[name]!.lines;
    const items = await readLines(await fixture(name));
    expect(items).toHaveLength(truth.length);
    for (const item of items) {
      const [x, y, w, h] = item.box;
      expect(Math.min(x, y, w, h)).toBeGreaterThanOrEqual(0);
      expect(x + w).toBeLessThanOrEqual(1);
      expect(y + h).toBeLessThanOrEqual(1);
      expect(item.score).toBeGreaterThan(0.5);
      expect(Object.keys(item).sort()).toEqual(['box', 'score', 'type']);
    }
    const tops = items.map((i) => i.box[1]);
    expect(tops).toEqual([...tops].sort((a, b) => a - b));
    const text = items.map((i) => i.type.normalize('NFKC')).join('\n');
    expect(cer(text, truth.join('\n'))).toBeLessThan(0.05);
  });

  it('reads text printed upside down (direction check)', async () => {
    const items = await readLines(await rgb(sharp(path.join(FIXTURES, 'text-en.png')).rotate(180)));
    const text = items.map((i) => i.type).join('\n');
    expect(cer(text, index.text['text-en.png']!.lines.join('\n'))).toBeLessThan(0.1);
  });

  it('answers an empty list for a blank image', async () => {
    const blank = await rgb(sharp({ create: { width: 320, height: 200, channels: 3, background: '#f4f4f4' } }));
    expect(await readLines(blank)).toEqual([]);
  });
});

describe('receipt text recognition (_0000143)', () => {
  it.each(Object.keys(index.receipts))('reads the fields of %s exactly', async (name) => {
    const { lang, fields } = index.receipts[name]!;
    const out = await ocrReceiptHandler.run(ctx, { rgb: await fixture(name), encoded: new Uint8Array(), params: {}, lang });
    expect(out.boxes_detected).toEqual([
      { type: 'merchant_code', value: fields.merchant_code, score: 0 },
      { type: 'terminal_no', value: fields.terminal_no, score: 0 },
      { type: 'cardnetwork_merchant_code', value: fields.cardnetwork_merchant_code, score: 0 },
      { type: 'amount', value: fields.amount, score: 0 },
    ]);
  });

  it('answers the four types with null values when there is no text', async () => {
    const blank = await rgb(sharp({ create: { width: 200, height: 300, channels: 3, background: '#ffffff' } }));
    const out = await ocrReceiptHandler.run(ctx, { rgb: blank, encoded: new Uint8Array(), params: {}, lang: 'zh' });
    expect(out.boxes_detected).toEqual(['merchant_code', 'terminal_no', 'cardnetwork_merchant_code', 'amount'].map((type) => ({ type, value: null, score: 0 })));
  });
});
