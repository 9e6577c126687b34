/**
 * `npm run bench -- ocr`: latency of text recognition (_0000154) and receipt fields (_0000143) on 640-pixel
 * JPEGs (decoded as the HTTP route does, then the handler through a real inference pool with one thread per
 * core), and images per second with all cores busy (twice as many requests in flight as threads).
 *
 * Cost grows with the amount of text, so three pictures: a card slip with 28 lines (the Chinese test
 * fixture), a page of four lines, and opencv-doc's scenetext06.jpg street photo (two signs) when that Debian
 * package is available.
 */
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { closedLoopRate, median, percentile, printTable } from '../../scripts/table.js';
import type { AnalysisContext, AnyAnalysisHandler } from '../src/domains/analysis/analysis-registry.js';
import { ocrReceiptHandler } from '../src/domains/analysis/ocr/ocr-receipt.handler.js';
import { ocrTextHandler } from '../src/domains/analysis/ocr/ocr-text.handler.js';
import { decodeImage } from '../src/images/image-decoder.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { debianPackage, isMissing } from '../eval/lib/debian-datasets.js';

const FIXTURES = path.resolve(import.meta.dirname, '../test/fixtures/ocr');
const SEQUENTIAL_RUNS = 20;
const THROUGHPUT_IMAGES = 24;

async function jpeg640(file: string): Promise<Uint8Array> {
  const out = await sharp(file).removeAlpha().resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 90 }).toBuffer();
  return new Uint8Array(out);
}

async function pictures(): Promise<{ name: string; jpeg: Uint8Array; handlers: AnyAnalysisHandler[] }[]> {
  const out = [
    { name: 'card slip, 28 lines (receipt-zh.png)', jpeg: await jpeg640(path.join(FIXTURES, 'receipt-zh.png')), handlers: [ocrTextHandler, ocrReceiptHandler] },
    { name: 'page, 4 lines (text-en.png)', jpeg: await jpeg640(path.join(FIXTURES, 'text-en.png')), handlers: [ocrTextHandler] },
  ];
  const doc = debianPackage('opencv-doc');
  if (!isMissing(doc)) {
    out.push({ name: 'street photo (scenetext06.jpg)', jpeg: await jpeg640(path.join(doc.root, 'usr/share/doc/opencv-doc/examples/text/scenetext06.jpg')), handlers: [ocrTextHandler] });
  }
  return out;
}

async function once(ctx: AnalysisContext, handler: AnyAnalysisHandler, jpeg: Uint8Array): Promise<void> {
  const rgb = await decodeImage(jpeg);
  await handler.run(ctx, { rgb, encoded: jpeg, params: {}, lang: 'zh' });
}

export default async function run(): Promise<void> {
  const pool = new InferencePool();
  const keepAlive = setInterval(() => undefined, 1000);
  const ctx: AnalysisContext = { pool };
  try {
    const list = await pictures();
    // Load the models on every thread first.
    await Promise.all(Array.from({ length: pool.size * 2 }, () => once(ctx, ocrTextHandler, list[0]!.jpeg)));
    const rows: (string | number)[][] = [];
    for (const picture of list) {
      for (const handler of picture.handlers) {
        const ms: number[] = [];
        for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
          const t0 = performance.now();
          await once(ctx, handler, picture.jpeg);
          ms.push(performance.now() - t0);
        }
        const perSecond = await closedLoopRate(THROUGHPUT_IMAGES, pool.size * 2, () => once(ctx, handler, picture.jpeg));
        rows.push([handler.serviceId, picture.name, Math.round(median(ms)), Math.round(percentile(ms, 99)), perSecond]);
      }
    }
    console.log(`${pool.size} inference threads on ${os.availableParallelism()} cores; ${SEQUENTIAL_RUNS} sequential runs, then ${THROUGHPUT_IMAGES} images with ${pool.size * 2} in flight.\n`);
    printTable(['service', 'picture (640 px JPEG)', 'p50 ms', 'p99 ms', 'images/s (all cores)'], rows);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
