/**
 * `npm run bench -- vision`: latency of each vision service on 640-pixel JPEGs (decoded as the HTTP route
 * does, then the handler through a real inference pool with one thread per core), and images per second with
 * all cores busy (as many requests in flight as twice the pool size).
 *
 * Two photos, since the cost depends on what is in the picture: darknet's dog.jpg (a dog, a bicycle, a
 * truck, no people) and skimage's astronaut.png (one person, one face: the people service's full pipeline),
 * both scaled to 640 pixels on the longer side (Debian packages, fetched into the eval cache). Without those
 * packages, a photo shipped in @vladmandic/human's assets.
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { median, percentile, printTable } from '../../scripts/table.js';
import type { AnalysisContext, AnyAnalysisHandler } from '../src/domains/analysis/analysis-registry.js';
import { VISION_CLASSIFY_HANDLERS } from '../src/domains/analysis/classify/vision-classify.handlers.js';
import { VISION_DETECT_HANDLERS } from '../src/domains/analysis/detect/vision-detect.handlers.js';
import { decodeImage } from '../src/images/image-decoder.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { debianPackage, isMissing } from '../eval/lib/debian-datasets.js';
import { resolveModelFile } from '../src/vision/runtime/model-config.js';

const SEQUENTIAL_RUNS = 15;
const THROUGHPUT_IMAGES = 16;
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

function photoFile(pkg: string, relative: string): string {
  const found = debianPackage(pkg);
  return isMissing(found) ? resolveModelFile('pkg:@vladmandic/human/assets/screenshot-facedetect.jpg', '/') : path.join(found.root, relative);
}

async function benchJpegs(): Promise<{ jpeg: Uint8Array; name: string }[]> {
  const files = [
    photoFile('darknet', 'usr/share/darknet/data/dog.jpg'),
    photoFile('python3-skimage', 'usr/lib/python3/dist-packages/skimage/data/astronaut.png'),
  ];
  return Promise.all(
    files.map(async (file) => {
      const jpeg = await sharp(file).removeAlpha().resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 90 }).toBuffer();
      const meta = await sharp(jpeg).metadata();
      return { jpeg: new Uint8Array(jpeg), name: `${path.basename(file)} ${meta.width}×${meta.height}` };
    }),
  );
}

async function once(ctx: AnalysisContext, handler: AnyAnalysisHandler, jpeg: Uint8Array): Promise<void> {
  const rgb: RgbImage = await decodeImage(jpeg);
  await handler.run(ctx, { rgb, encoded: jpeg, params: {}, lang: 'en' });
}

async function measure(ctx: AnalysisContext, handler: AnyAnalysisHandler, jpeg: Uint8Array, threads: number): Promise<[number, number, number]> {
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
  return [median(latencies), percentile(latencies, 99), THROUGHPUT_IMAGES / ((performance.now() - started) / 1000)];
}

export default async function bench(): Promise<void> {
  const threads = Math.max(1, os.availableParallelism());
  const pool = new InferencePool(threads);
  const ctx: AnalysisContext = { pool };
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const photos = await benchJpegs();
    const load = os.loadavg()[0]!;
    console.log(`Photos: ${photos.map((p) => `${p.name} (${(p.jpeg.length / 1024).toFixed(0)} KiB)`).join(', ')}; pool of ${threads} threads; load average at start ${load.toFixed(1)}.\n`);
    const decodeTimes: number[] = [];
    for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
      const t = performance.now();
      await decodeImage(photos[0]!.jpeg);
      decodeTimes.push(performance.now() - t);
    }
    const rows: (string | number)[][] = [];
    for (const handler of [...VISION_DETECT_HANDLERS, ...VISION_CLASSIFY_HANDLERS]) {
      const row: (string | number)[] = [`${handler.serviceId} ${NAMES[handler.serviceId] ?? ''}`.trim()];
      for (const photo of photos) row.push(...(await measure(ctx, handler, photo.jpeg, threads)));
      rows.push(row);
    }
    const headers = ['service', ...photos.flatMap((p) => { const n = p.name.split(' ')[0]; return [`${n} p50 ms`, `${n} p99 ms`, `${n} images/s`]; })];
    printTable(headers, rows);
    console.log(`Latencies include decoding the JPEG (alone: p50 ${median(decodeTimes).toFixed(1)} ms); ${SEQUENTIAL_RUNS} sequential requests per service and photo, then ${THROUGHPUT_IMAGES} with ${threads * 2} in flight (images/s). Load average at the end ${os.loadavg()[0]!.toFixed(1)}.\n`);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
