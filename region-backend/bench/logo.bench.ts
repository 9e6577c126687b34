/**
 * `npm run bench -- logo`: costs of logo detection (_0000188) on the inference tasks.
 *
 * (a) OpenCV start-up per inference thread: a fresh single-thread pool per run, the thread's own load time
 *     (wasm compile + runtime init) and the wall time of its first task, plus the process's memory growth.
 * (b) Query latency against libraries of 1 to 128 reference images (synthetic emblems), on 800×600 and
 *     1600×1200 pictures that each show one registered logo: median and p90 over the queries, and the cost per
 *     reference image of exhaustive matching (linear in the library); above SHORTLIST.above references, the
 *     descriptor-index shortlist against exhaustive matching of the same library.
 * (c) The service's figures for a 640-pixel JPEG with a library of 4 brands: decode as the route does, then the
 *     match task on a pool with one thread per core; p50/p99 of sequential requests and images/s with all cores
 *     busy (the handler adds only the library's version check, one small query).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import os from 'node:os';
import sharp from 'sharp';
import { closedLoopRate, median, percentile, printTable } from '../../scripts/table.js';
import { sharedImage } from '../src/domains/analysis/detect/vision-calls.js';
import { packableReference, packLibrary, type PackableReference } from '../src/domains/logos/logo-library.js';
import { SHORTLIST } from '../src/vision/logo/logo-params.js';
import { decodeReference } from '../src/vision/logo/reference-image.js';
import { clutterBackground, encodeJpeg, placeLogo, renderLogo } from '../test/support/logo-fixtures.js';
import { decodeImage } from '../src/images/image-decoder.js';
import { InferencePool } from '../src/inference/inference-pool.js';

const LOADS = 5;
const QUERIES = 8;
const SIZES = [1, 4, 16, 32, 64, 128];
const SERVICE_RUNS = 30;
const SERVICE_THROUGHPUT = 40;

async function reference(pool: InferencePool, id: number, png: Buffer): Promise<PackableReference> {
  const f = await pool.run('logo-extract', { image: (await decodeReference(png)).rgba });
  return packableReference(id, id, f);
}

async function startup(logo: Buffer): Promise<void> {
  const rows: (string | number)[][] = [];
  const loads: number[] = [];
  const firsts: number[] = [];
  const grows: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const before = process.memoryUsage().rss;
    const pool = new InferencePool(1);
    try {
      const t0 = performance.now();
      const row = await reference(pool, 1, logo);
      firsts.push(performance.now() - t0);
      const library = packLibrary(`load-${i}`, [row])!;
      const tiny: RgbImage = { data: new Uint8Array(64 * 64 * 3), width: 64, height: 64 };
      const result = await pool.run('logo-match', { image: sharedImage(tiny), library });
      loads.push(result.timings.opencvLoadMs);
      grows.push((process.memoryUsage().rss - before) / 1024 / 1024);
    } finally {
      await pool.close();
    }
  }
  rows.push([Math.round(median(loads)), Math.round(Math.max(...loads)), Math.round(median(firsts)), Math.round(median(grows))]);
  printTable(['OpenCV load on a thread, median ms', 'max ms', 'first task on a fresh thread (start + load + one extraction), median ms', 'process memory growth per loaded thread, median MB'], rows);
}

export default async function run(): Promise<void> {
  console.log(`${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}\n`);
  const logos = await Promise.all(Array.from({ length: Math.max(...SIZES) }, (_, i) => renderLogo(`bench-${i}`, { transparent: i % 2 === 1 })));
  await startup(logos[0]!.png);

  const pool = new InferencePool(1);
  try {
    const references: PackableReference[] = [];
    const extractMs: number[] = [];
    for (const [i, logo] of logos.entries()) {
      const t0 = performance.now();
      references.push(await reference(pool, i + 1, logo.png));
      extractMs.push(performance.now() - t0);
    }
    printTable(['reference extraction (decode + features), median ms', 'p90 ms', 'keypoints per reference, median'], [[Math.round(median(extractMs)), Math.round(percentile(extractMs, 90)), median(references.map((r) => r.n_keypoints))]]);

    const rows: (string | number)[][] = [];
    for (const [width, height] of [[800, 600], [1600, 1200]] as const) {
      const pictures: RgbImage[] = [];
      for (let q = 0; q < QUERIES; q++) {
        const background = await clutterBackground(`bench-${width}-${q}`, width, height);
        // Always the first brand: it is part of every library size.
        pictures.push(sharedImage((await placeLogo(background, logos[0]!.png, { cx: 0.3 + 0.05 * q, cy: 0.5, width: 0.3, rotation: 5 * q - 20 })).image));
      }
      let previous: { size: number; ms: number } | null = null;
      for (const size of SIZES) {
        const library = packLibrary(`bench-${size}`, references.slice(0, size))!;
        const modes = size > SHORTLIST.above ? (['exhaustive', 'shortlist'] as const) : (['exhaustive'] as const);
        for (const mode of modes) {
          const shortlist = mode === 'exhaustive' ? { ...SHORTLIST, above: Number.MAX_SAFE_INTEGER } : SHORTLIST;
          await pool.run('logo-match', { image: pictures[0]!, library, shortlist });
          const ms: number[] = [];
          const features: number[] = [];
          let found = 0;
          for (const image of pictures) {
            const t0 = performance.now();
            const result = await pool.run('logo-match', { image, library, shortlist });
            ms.push(performance.now() - t0);
            features.push(result.timings.featuresMs);
            if (result.detections.some((d) => d.brandId === 1)) found++;
          }
          const m = median(ms);
          const perReference = mode === 'exhaustive' && previous ? Math.round((m - previous.ms) / (size - previous.size)) : '–';
          rows.push([`${width}×${height}`, size, mode, Math.round(m), Math.round(percentile(ms, 90)), Math.round(median(features)), perReference, `${found}/${pictures.length}`]);
          if (mode === 'exhaustive') previous = { size, ms: m };
        }
      }
    }
    printTable(['picture', 'reference images', 'matching', 'query median ms', 'p90 ms', 'features median ms', 'ms per added reference', 'logo found'], rows);
    await service(references.slice(0, 4), logos[0]!.png);
  } finally {
    await pool.close();
  }
}

async function service(references: PackableReference[], logo: Buffer): Promise<void> {
  const background = await clutterBackground('bench-service', 640, 480);
  const placed = await placeLogo(background, logo, { cx: 0.45, cy: 0.5, width: 0.35, rotation: 8 });
  const jpeg = new Uint8Array(await encodeJpeg(placed.image, 90));
  const library = packLibrary('bench-service', references)!;
  const pool = new InferencePool();
  let found = 0;
  const once = async () => {
    const rgb = await decodeImage(jpeg);
    const result = await pool.run('logo-match', { image: sharedImage(rgb), library });
    if (result.detections.some((d) => d.brandId === 1)) found++;
  };
  try {
    await Promise.all(Array.from({ length: pool.size * 2 }, once));
    found = 0;
    const ms: number[] = [];
    for (let i = 0; i < SERVICE_RUNS; i++) {
      const t0 = performance.now();
      await once();
      ms.push(performance.now() - t0);
    }
    const perSecond = await closedLoopRate(SERVICE_THROUGHPUT, pool.size * 2, once);
    const { width, height } = await sharp(jpeg).metadata();
    console.log(`\n_0000188 on a ${width}×${height} JPEG, 4 registered brands, ${pool.size} inference threads on ${os.availableParallelism()} cores; ${SERVICE_RUNS} sequential requests, then ${SERVICE_THROUGHPUT} with ${pool.size * 2} in flight.\n`);
    printTable(['service', 'p50 ms', 'p99 ms', 'images/s (all cores)', 'logo found'], [['_0000188 logos', Math.round(median(ms)), Math.round(percentile(ms, 99)), perSecond, `${found}/${SERVICE_RUNS + SERVICE_THROUGHPUT}`]]);
  } finally {
    await pool.close();
  }
}
