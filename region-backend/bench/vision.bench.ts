/**
 * `npm run bench -- vision`: latency of each vision service on a 640-pixel JPEG (decode as the HTTP route
 * does, then the handler through a real inference pool with one thread per core), and images per second with
 * all cores busy (as many requests in flight as twice the pool size).
 *
 * The photo is darknet's dog.jpg (Debian package, fetched into the eval cache) scaled to 640 pixels on its
 * longer side; without that package, a 640-pixel crop of a photo shipped in @vladmandic/human's assets.
 */
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { median, percentile, printTable } from '../../scripts/table.js';
import type { AnalysisContext, AnalysisHandler, RgbImage } from '../src/analysis/analysis-registry.js';
import { VISION_CLASSIFY_HANDLERS } from '../src/analysis/classify/vision-classify.handlers.js';
import { VISION_DETECT_HANDLERS } from '../src/analysis/detect/vision-detect.handlers.js';
import { decodeImage } from '../src/images/image-decoder.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { debianPackage, isMissing } from '../eval/lib/debian-datasets.js';
import { resolveModelFile } from '../src/analysis/model-config.js';

const SEQUENTIAL_RUNS = 25;
const THROUGHPUT_IMAGES = 24;
const NAMES: Record<string, string> = {
  _0000049: 'faces',
  _0000059: 'bodies',
  _0000187: 'people',
  _0000171: 'furniture',
  _0000173: 'fashion detection',
  _0000024: 'pornography',
  _0000039: 'scene',
  _0000159: 'general tagging',
};

async function benchJpeg(): Promise<{ jpeg: Uint8Array; source: string }> {
  const darknet = debianPackage('darknet');
  const file = isMissing(darknet)
    ? resolveModelFile('pkg:@vladmandic/human/assets/screenshot-facedetect.jpg', '/')
    : path.join(darknet.root, 'usr/share/darknet/data/dog.jpg');
  const jpeg = await sharp(file).resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 90 }).toBuffer();
  return { jpeg: new Uint8Array(jpeg), source: path.basename(file) };
}

async function once(ctx: AnalysisContext, handler: AnalysisHandler, jpeg: Uint8Array): Promise<void> {
  const rgb: RgbImage = await decodeImage(jpeg);
  await handler.run(ctx, { rgb, encoded: jpeg, params: {}, lang: 'en' });
}

export default async function bench(): Promise<void> {
  const threads = Math.max(1, os.availableParallelism());
  const pool = new InferencePool(threads);
  const ctx: AnalysisContext = { pool };
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const { jpeg, source } = await benchJpeg();
    const probe = await sharp(jpeg).metadata();
    console.log(`Photo: ${source} scaled to ${probe.width}×${probe.height} JPEG (${(jpeg.length / 1024).toFixed(0)} KiB); pool of ${threads} threads.\n`);

    const decodeTimes: number[] = [];
    for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
      const t = performance.now();
      await decodeImage(jpeg);
      decodeTimes.push(performance.now() - t);
    }

    const rows: (string | number)[][] = [];
    for (const handler of [...VISION_DETECT_HANDLERS, ...VISION_CLASSIFY_HANDLERS]) {
      // Warm-up: every thread loads the service's models once.
      await Promise.all(Array.from({ length: threads * 2 }, () => once(ctx, handler, jpeg)));
      const latencies: number[] = [];
      for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
        const t = performance.now();
        await once(ctx, handler, jpeg);
        latencies.push(performance.now() - t);
      }
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: threads * 2 }, async () => {
          while (next++ < THROUGHPUT_IMAGES) await once(ctx, handler, jpeg);
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      rows.push([`${handler.serviceId} ${NAMES[handler.serviceId] ?? ''}`.trim(), median(latencies), percentile(latencies, 99), THROUGHPUT_IMAGES / seconds]);
    }
    printTable(['service', 'p50 ms', 'p99 ms', `images/s (${threads * 2} in flight)`], rows);
    console.log(`Latencies include decoding the JPEG (alone: p50 ${median(decodeTimes).toFixed(1)} ms); ${SEQUENTIAL_RUNS} sequential requests per service, then ${THROUGHPUT_IMAGES} with ${threads * 2} in flight.\n`);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
