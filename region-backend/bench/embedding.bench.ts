/**
 * `npm run bench -- embedding`: latency of the `embed` task per 640-px JPEG on one worker thread (per scenario,
 * since scenarios differ in the number of views), and throughput with a pool of two threads.
 * IRIS_BENCH_RUNS (default 30) sets the number of timed runs per row.
 */
import sharp from 'sharp';
import { median, percentile, printTable } from '../../scripts/table.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { resolveModelFile } from '../src/vision/runtime/model-config.js';
const packageFile = (pkg: string, relative: string) => resolveModelFile(`pkg:${pkg}/${relative}`, '.');
import { EMBEDDING_DIM, EMBEDDING_VERSION } from '../src/vision/embedding/embedding-info.js';

const RUNS = Number(process.env.IRIS_BENCH_RUNS ?? 30);

async function testImages(): Promise<Buffer[]> {
  const file = packageFile('@vladmandic/human', 'assets/samples.jpg');
  const regions = [
    { left: 0, top: 190, width: 1280, height: 968 },
    { left: 0, top: 190, width: 900, height: 700 },
    { left: 380, top: 300, width: 900, height: 858 },
    { left: 100, top: 400, width: 1100, height: 700 },
  ];
  return Promise.all(regions.map((r) => sharp(file).extract(r).resize(640).jpeg({ quality: 85 }).toBuffer()));
}

export default async function run(): Promise<void> {
  const images = await testImages();
  console.log(`Embedding ${EMBEDDING_VERSION} (${EMBEDDING_DIM} dimensions); 640-px JPEG inputs, ${RUNS} timed runs per row after 3 warm-up runs.\n`);

  const single = new InferencePool(1);
  const rows: (string | number)[][] = [];
  try {
    for (const scenario of ['general', 'fashion', 'material']) {
      for (let i = 0; i < 3; i++) await single.run('embed', { image: images[i % images.length], scenario });
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await single.run('embed', { image: images[i % images.length], scenario });
        times.push(performance.now() - t0);
      }
      rows.push([scenario, 1, median(times), percentile(times, 99), 1000 / median(times)]);
    }
  } finally {
    await single.close();
  }

  const pair = new InferencePool(2);
  try {
    rows.push(await queued(pair, images, 'general', RUNS * 2, 'interactive'));
    // Background work is batched, 8 pictures per task: a fashion picture's whole view and mirror image share a size.
    for (const scenario of ['general', 'fashion']) rows.push(await queued(pair, images, scenario, RUNS * 2, 'background'));
  } finally {
    await pair.close();
  }
  printTable(['scenario', 'threads', 'p50 ms', 'p99 ms', 'images/s'], rows);
  console.log('With two threads all jobs are queued at once, so p50/p99 include waiting time; images/s is the throughput.');
}

/** All `count` embeds queued at once on the two threads of `pool` (background ones batched by the pool). */
async function queued(pool: InferencePool, images: Buffer[], scenario: string, count: number, priority: 'interactive' | 'background'): Promise<(string | number)[]> {
  await Promise.all([0, 1, 2, 3].map((i) => pool.run('embed', { image: images[i % images.length], scenario }, { priority })));
  const t0 = performance.now();
  const times = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const start = performance.now();
      await pool.run('embed', { image: images[i % images.length], scenario }, { priority });
      return performance.now() - start;
    }),
  );
  const label = priority === 'background' ? `${scenario} (queued, background: batches of 8)` : `${scenario} (queued)`;
  return [label, 2, median(times), percentile(times, 99), count / ((performance.now() - t0) / 1000)];
}
