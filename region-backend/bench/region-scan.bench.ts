/**
 * Where a weak query's region pass spends its time, in one process on the pool the backend runs (two threads
 * and a low-priority tier of two): the inference tasks of a search (the query's embedding, keypoints and mirror
 * keypoints; the windows' vectors and keypoints) on the bench's 640×480 query, without the index, the records or
 * HTTP; the windows' keypoints take the query's text banner and the pasted picture is looked for, as the search
 * does. Each task alone on an idle pool (its single-thread time: the CPU the search needs), then three schedules
 * interleaved call by call: the query's own tasks (the floor, as `regions=off`), the same followed by the
 * region scan as the search runs it (once the whole picture's match is known weak: docs/search.md, "Regions of
 * the query"), and the region scan queued with the query's own tasks as background work, so it takes only
 * threads they leave idle (tried, not kept: docs/benchmarks.md, "Regions of the query on a weak match"). Last,
 * the windows' vectors at the scan size the search uses and at the one before it, and the pasted picture's grey
 * copy and box, interleaved on the bench's own thread.
 *
 *   npm run bench -- region-scan
 *   IRIS_BENCH_QUERIES=30 npm run bench -- region-scan
 */
import os from 'node:os';
import { median, printTable } from '../../scripts/table.js';
import { decodeImage } from '../src/images/image-decoder.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { greyCopy, INSET_GREY_SIDE, insetBox } from '../src/vision/embedding/inset-box.js';
import { embedQueryRegions, QUERY_REGIONS, queryRegions, REGION_SCAN } from '../src/vision/embedding/query-regions.js';
import { photoJpeg } from '../test/support/test-images.js';

const QUERIES = Number(process.env.IRIS_BENCH_QUERIES ?? 15);

export default async function run(): Promise<void> {
  const pool = new InferencePool(2, { lowPriorityThreads: 2, warmModels: true });
  try {
    const rgb = await decodeImage(await photoJpeg(640, 480, 3), { maxSide: 1024 });
    const options = { priority: 'interactive' as const, accountId: 1 };
    // As the search asks: the embedding only, its keypoints described by a task of their own.
    const embedPayload = { rgb, scenario: 'general', features: false };
    // The query's own tasks as the search queues them; resolves when re-ranking would have them all.
    const ownTasks = () => {
      const embedded = pool.run('search-query-embed', embedPayload, options);
      const described = pool.run('search-query-features', { rgb }, { ...options, mayBorrow: true });
      // The mirror image is described from the query's grey picture, once the query's keypoints are in.
      const mirrored = described.then((query) => pool.run('search-query-features', { mirrorOf: query.described! }, { ...options, mayBorrow: true }));
      return Promise.all([embedded, described, mirrored]);
    };
    const query = await pool.run('search-query-features', { rgb }, options);
    // As the search passes them: the text banner the query's keypoint task found, and the scenario's views.
    const windowFeatures = { rgb, side: QUERY_REGIONS.side, banner: query.described!.banner };
    const inset = { rgb, scenario: 'general' };
    const regionScan = (priority: 'interactive' | 'background') => {
      const scanOptions = priority === 'interactive' ? options : { priority };
      return Promise.all([
        pool.run('search-query-regions', { rgb, regions: queryRegions() }, scanOptions),
        pool.run('search-window-features', windowFeatures, { ...scanOptions, mayBorrow: true }),
        pool.run('search-query-inset', inset, { ...scanOptions, mayBorrow: true }),
      ]);
    };
    const tasks = {
      "the query's embedding (224 px)": () => pool.run('search-query-embed', embedPayload, options),
      "the query's keypoints (480 px)": () => pool.run('search-query-features', { rgb }, options),
      "its mirror image's keypoints (480 px)": () => pool.run('search-query-features', { mirrorOf: query.described! }, options),
       [`the windows' vectors (one pass at ${REGION_SCAN.size} px)`]: () => pool.run('search-query-regions', { rgb, regions: queryRegions() }, options),
      "the windows' keypoints (one description)": () => pool.run('search-window-features', windowFeatures, options),
      'the pasted picture looked for (none in this query)': () => pool.run('search-query-inset', inset, options),
    };
    const schedules = {
      "the query's tasks (floor)": async () => {
        await ownTasks();
      },
      'then the region scan': async () => {
        await ownTasks();
        await regionScan('interactive');
      },
      'the region scan queued with the query, as background work': async () => {
        await Promise.all([ownTasks(), regionScan('background')]);
      },
    };
    const timed = async (runs: Record<string, () => Promise<unknown>>) => {
      const ms = new Map<string, number[]>(Object.keys(runs).map((k) => [k, []]));
      for (let i = 0; i < QUERIES + 2; i++) {
        for (const [name, call] of Object.entries(runs)) {
          const started = performance.now();
          await call();
          if (i >= 2) ms.get(name)!.push(performance.now() - started);
        }
      }
      return new Map([...ms].map(([k, list]) => [k, median(list)]));
    };
    const loadBefore = os.loadavg()[0]!;
    const alone = await timed(tasks);
    const scheduled = await timed(schedules);
    const floor = scheduled.get("the query's tasks (floor)")!;
    console.log(`${QUERIES} calls per row after 2 warm-up calls, ${os.availableParallelism()} cores, load average ${loadBefore.toFixed(1)} before / ${os.loadavg()[0]!.toFixed(1)} after.\n`);
    printTable(['task, alone on an idle pool', 'p50 ms'], [...alone].map(([k, v]) => [k, v]));
    printTable(['schedule', 'p50 ms', 'ratio to the floor'], [...scheduled].map(([k, v]) => [k, v, v / floor]));
    const sizes = [REGION_SCAN.size, 384].filter((size, i, all) => all.indexOf(size) === i);
    const grey = greyCopy(rgb, INSET_GREY_SIDE);
    const scans = await timed({
      ...Object.fromEntries(sizes.map((size) => [`the windows' vectors, one pass at ${size} px`, () => embedQueryRegions(rgb, queryRegions(), undefined, { ...REGION_SCAN, size })])),
      [`the pasted picture: the query's grey copy at ${INSET_GREY_SIDE} px`]: async () => greyCopy(rgb, INSET_GREY_SIDE),
      'the pasted picture: its box on the grey copy': async () => insetBox(grey),
    });
    printTable(['on the bench thread', 'p50 ms'], [...scans].map(([k, v]) => [k, v]));
  } finally {
    await pool.close();
  }
}
