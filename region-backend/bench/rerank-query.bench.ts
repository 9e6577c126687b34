/**
 * `npm run bench -- rerank-query`: one re-ranked query part by part, on one thread of this process, for a
 * 640×480 and a 1024×768 query photo (the search bench's pictures), with the plain query (decode + embedding)
 * as the floor in the same run. Rows: decoding the upload, copying the pixels to an inference thread, the
 * embedding task, and the query's keypoint task split into its parts (text banner, grey picture at the
 * describing side, ORB), the mirror image's, reading nothing from PostgreSQL (the search bench times that), and
 * verifying 10 candidates none of which is the query's source (the worst case). Then the ratio of the
 * re-ranking's critical path (the longer of the embedding and the keypoint task, plus verification) to the floor.
 * IRIS_BENCH_RUNS (default 20) sets the timed runs per row.
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
import { photoJpeg } from '../test/support/test-images.js';
import { realPictures } from './rerank-stages.js';

const RUNS = Number(process.env.IRIS_BENCH_RUNS ?? 20);

async function timeMs(fn: () => unknown): Promise<number> {
  await fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
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
    const orbOnly = (s = at, keypoints: number = LOCAL_FEATURES.queryFeatures) => {
      const scope = new CvScope();
      try {
        const g = greyAt(cv, scope, rgb, s.width, s.height);
        const started = performance.now();
        orbInto(cv, scope, g, keypoints, 0, 1, { points: [], descriptors: [] });
        return performance.now() - started;
      } finally {
        scope.release();
      }
    };
    const orbMs = async (s = at, keypoints: number = LOCAL_FEATURES.queryFeatures) => {
      orbOnly(s, keypoints);
      return median(Array.from({ length: RUNS }, () => orbOnly(s, keypoints)));
    };
    const query = queryLocalFeatures(cv, rgb, false, banner);
    const label = `${width}×${height}`;
    const decode = await timeMs(() => decodeImage(jpeg, { maxSide: 1024 }));
    const hop = await timeMs(() => structuredClone(rgb));
    const embedding = await timeMs(() => embedForQuery({ rgb, scenario: 'general', features: false }));
    const bannerMs = await timeMs(() => textBanner(rgb));
    const greyMs = await timeMs(() => grey());
    const orb = await orbMs();
    const task = await timeMs(() => packLocalFeatures(queryLocalFeatures(cv, rgb, false, textBanner(rgb))));
    const described = describeQuery(cv, rgb, banner);
    const mirrorTask = await timeMs(() => packLocalFeatures(mirrorLocalFeatures(cv, described.grey, described.banner)));
    const mirrorFromPicture = await timeMs(() => packLocalFeatures(queryLocalFeatures(cv, rgb, true, textBanner(rgb))));
    const verify = await timeMs(() => verifyCandidates(query, candidates));
    const mirrored = queryLocalFeatures(cv, rgb, true, banner);
    const verifyMirror = await timeMs(() => verifyMirrored(mirrored, candidates));
    rows.push(
      [`${label}: decoding the upload (≤ 1024 px)`, decode],
      [`${label}: copying the decoded pixels to a thread (structured clone, ${Math.round(rgb.data.length / 1024)} kB)`, hop],
      [`${label}: embedding task (views, content box, banner, int8 backbone)`, embedding],
      [`${label}: keypoint task, all (text banner + grey + ORB + packing)`, task],
      [`${label}:   text banner`, bannerMs],
      [`${label}:   grey picture at ${at.width}×${at.height} (copy, RGB→grey at ${rgb.width}×${rgb.height}, resize)`, greyMs],
      [`${label}:   ORB, ${LOCAL_FEATURES.queryFeatures} keypoints at ${side} px (${query.count} found)`, orb],
      [`${label}:   ORB, ${LOCAL_FEATURES.queryFeatures} keypoints at 640 px (the describing side before)`, await orbMs(sizeAt(rgb, 640))],
      [`${label}:   ORB, 500 keypoints at ${side} px`, await orbMs(at, 500)],
      [`${label}: mirror-image task, from the query's grey picture (at ${wholeQuerySide(rgb)} px)`, mirrorTask],
      [`${label}: mirror image described from the picture instead (banner, grey, ORB)`, mirrorFromPicture],
      [`${label}: verifying 10 candidates, none the source`, verify],
      [`${label}: verifying 10 candidates with the mirror image`, verifyMirror],
    );
    const floor = decode + embedding;
    const critical = decode + Math.max(embedding, task) + verify;
    summary.push([label, floor, critical, critical / floor, decode + embedding + task + verify + mirrorTask + verifyMirror]);
  }
  console.log(`One thread, median of ${RUNS} runs; ${os.availableParallelism()} cores, load average ${loadBefore.toFixed(1)} before / ${os.loadavg()[0]!.toFixed(1)} after.\n`);
  printTable(['re-ranked query, part', 'ms'], rows);
  printTable(['query', 'floor: decode + embedding ms', 're-ranked critical path ms (decode + longer of embedding and keypoints + verifying)', 'ratio', 'all CPU of a worst-case query ms (mirror pass included)'], summary);
}
