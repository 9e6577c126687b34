/**
 * `npm run bench -- rerank-query`: one re-ranked query part by part, on one thread of this process, for a
 * 640×480 and a 1024×768 query photo (the search bench's pictures), with the plain query (decode + embedding)
 * as the floor in the same run: decoding the upload, copying the pixels to an inference thread, the embedding
 * task, the query's keypoint task and its parts (text banner, grey picture at the describing side, ORB; ORB
 * also at the former 640 px and with fewer keypoints), the mirror image's task (from the query's grey picture,
 * and from the picture as before), and verifying 10 candidates none of which is the query's source (the worst
 * case, which also runs the mirror pass), and the content box the embedding task looks for. Wall and CPU time
 * per part, rounds interleaved so every part sees the same load; then the worst case's CPU against the floor's.
 * Reading the candidates' keypoints from PostgreSQL is timed by the search bench (rerank-stages.ts).
 * IRIS_BENCH_RUNS (default 20) sets the rounds.
 */
import os from 'node:os';
import { median, printTable } from '../../scripts/table.js';
import { decodeImage } from '../src/images/image-decoder.js';
import type { RgbImage } from '../src/images/rgb-image.js';
import { CvScope } from '../src/vision/runtime/opencv-runtime.js';
import { opencv } from '../src/vision/runtime/opencv-runtime.js';
import { greyAt, orbInto } from '../src/vision/logo/orb-extraction.js';
import { embedForQuery } from '../src/vision/embedding/search-embedding.js';
import { warmUpEmbedder } from '../src/vision/embedding/embedder.js';
import { verifyCandidates, verifyMirrored } from '../src/vision/embedding/geometric-verify.js';
import { describeQuery, extractLocalFeatures, LOCAL_FEATURES, mirrorLocalFeatures, packLocalFeatures, queryLocalFeatures, unpackLocalFeatures, wholeQuerySide } from '../src/vision/embedding/local-features.js';
import { textBanner } from '../src/vision/embedding/text-banner.js';
import { contentBox } from '../src/vision/embedding/content-box.js';
import { photoJpeg } from '../test/support/test-images.js';
import { realPictures } from './rerank-stages.js';

const RUNS = Number(process.env.IRIS_BENCH_RUNS ?? 20);

type Part = [label: string, fn: () => unknown];

/**
 * Wall and CPU milliseconds (process CPU: the decode's libvips threads count) of each part, median of RUNS
 * rounds in which every part runs once: on a shared machine each part then sees the same load.
 */
async function measureParts(parts: Part[]): Promise<Map<string, { wall: number; cpu: number }>> {
  for (const [, fn] of parts) await fn();
  const wall = parts.map(() => [] as number[]);
  const cpu = parts.map(() => [] as number[]);
  for (let r = 0; r < RUNS; r++) {
    for (const [i, [, fn]] of parts.entries()) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      await fn();
      wall[i]!.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpu[i]!.push((used.user + used.system) / 1000);
    }
  }
  return new Map(parts.map(([label], i) => [label, { wall: median(wall[i]!), cpu: median(cpu[i]!) }]));
}

function sizeAt(image: RgbImage, side: number) {
  const factor = side / Math.max(image.width, image.height);
  return { width: Math.max(1, Math.round(image.width * factor)), height: Math.max(1, Math.round(image.height * factor)) };
}

export default async function run(): Promise<void> {
  const { cv } = await opencv();
  await warmUpEmbedder();
  const candidates = (await realPictures()).map((p) => unpackLocalFeatures(packLocalFeatures(extractLocalFeatures(cv, p, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures))));
  const loadBefore = os.loadavg()[0]!;
  const rows: (string | number)[][] = [];
  const summary: (string | number)[][] = [];
  for (const [width, height] of [[640, 480], [1024, 768]] as const) {
    const jpeg = await photoJpeg(width, height, 3);
    const rgb = await decodeImage(jpeg, { maxSide: 1024 });
    const side = wholeQuerySide(rgb);
    const at = sizeAt(rgb, side);
    const banner = textBanner(rgb);
    const grey = (mirror = false, s = at) => {
      const scope = new CvScope();
      try {
        greyAt(cv, scope, rgb, s.width, s.height, mirror);
      } finally {
        scope.release();
      }
    };
    const orb = (s = at, keypoints: number = LOCAL_FEATURES.queryFeatures) => {
      const scope = new CvScope();
      try {
        orbInto(cv, scope, greyAt(cv, scope, rgb, s.width, s.height), keypoints, 0, 1, { points: [], descriptors: [] });
      } finally {
        scope.release();
      }
    };
    const query = queryLocalFeatures(cv, rgb, false, banner);
    const described = describeQuery(cv, rgb, banner);
    const mirrored = queryLocalFeatures(cv, rgb, true, banner);
    const label = `${width}×${height}`;
    const before = sizeAt(rgb, 640);
    const parts: Part[] = [
      ['decoding the upload (≤ 1024 px)', () => decodeImage(jpeg, { maxSide: 1024 })],
      [`copying the decoded pixels to a thread (structured clone, ${Math.round(rgb.data.length / 1024)} kB)`, () => structuredClone(rgb)],
      ['embedding task (views, content box, text banner, int8 backbone)', () => embedForQuery({ rgb, scenario: 'general', features: false })],
      ['keypoint task (text banner + grey picture + ORB + packing)', () => packLocalFeatures(describeQuery(cv, rgb, textBanner(rgb)).features)],
      ['  text banner', () => textBanner(rgb)],
      [`  grey picture at ${at.width}×${at.height} (copy, RGB→grey at ${rgb.width}×${rgb.height}, resize)`, () => grey()],
      [`  grey picture + ORB, ${LOCAL_FEATURES.queryFeatures} keypoints at ${side} px (${query.count} found)`, () => orb()],
      [`  grey picture + ORB at ${before.width}×${before.height} (the describing side before)`, () => orb(before)],
      [`  grey picture + ORB, 500 keypoints at ${side} px`, () => orb(at, 500)],
      [`mirror-image task, from the query's grey picture (at ${wholeQuerySide(rgb)} px)`, () => packLocalFeatures(mirrorLocalFeatures(cv, described.grey, described.banner))],
      ['mirror-image task as before (from the picture: text banner, grey picture, ORB)', () => packLocalFeatures(queryLocalFeatures(cv, rgb, true, textBanner(rgb)))],
      ['verifying 10 candidates, none the source', () => verifyCandidates(query, candidates)],
      ['verifying 10 candidates with the mirror image', () => verifyMirrored(mirrored, candidates)],
      // Last, so the summary's part numbers stay: a part of the embedding task above.
      ['the content box (part of the embedding task)', () => contentBox(rgb)],
    ];
    const measured = await measureParts(parts);
    for (const [part] of parts) rows.push([`${label}: ${part}`, measured.get(part)!.wall, measured.get(part)!.cpu]);
    const cpuOf = (k: number) => measured.get(parts[k]![0])!.cpu;
    const floor = cpuOf(0) + cpuOf(2);
    const reranked = floor + cpuOf(3) + cpuOf(9) + cpuOf(11) + cpuOf(12);
    summary.push([label, floor, reranked, reranked / floor]);
  }
  console.log(`One thread, median of ${RUNS} rounds (each part once per round); ${os.availableParallelism()} cores, load average ${loadBefore.toFixed(1)} before / ${os.loadavg()[0]!.toFixed(1)} after.\n`);
  printTable(['re-ranked query, part', 'wall ms', 'CPU ms'], rows);
  printTable(['query', 'floor CPU ms: decode + embedding', 'worst-case re-ranked CPU ms: + keypoints, mirror image, both verifications', 'ratio'], summary);
}
