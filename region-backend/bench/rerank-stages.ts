/**
 * Where a query's re-ranking time goes, stage by stage, on one thread of this process (part of
 * `npm run bench -- search`): ORB on the query and on its mirror image, unpacking stored features, the Hamming
 * k-NN + RANSAC verification of 10 candidates (one of them the query's source, or none), and reading the
 * candidates' features from PostgreSQL. Pictures: ten real photos and screenshots shipped in @vladmandic/human;
 * the query is a 60 % crop of one of them, re-encoded; "none the source" queries a generated photo.
 */
import type pg from 'pg';
import sharp from 'sharp';
import { opencv } from '../src/vision/runtime/opencv-runtime.js';
import { VERIFY, verifyCandidates, verifyMirrored } from '../src/vision/embedding/geometric-verify.js';
import { RERANK } from '../src/vision/embedding/rerank-score.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures, queryLocalFeatures, unpackLocalFeatures, wholeQuerySide } from '../src/vision/embedding/local-features.js';
import { photoPixels } from '../test/support/test-images.js';
import { packageFile } from '../src/vision/runtime/tfjs.js';
import type { RgbImage } from '../src/images/rgb-image.js';
import { median, printTable } from '../../scripts/table.js';
import { itemFeatures } from '../src/domains/search-services/index-items.repo.js';
import { rgbOf } from '../test/support/real-photos.js';
import { textBanner } from '../src/vision/embedding/text-banner.js';

const RUNS = 30;
const SAMPLES = packageFile('@vladmandic/human', 'assets/samples.jpg');
/** x ranges of the seven photos in the top strip of the sample collage (157 px high). */
const STRIP = [[0, 157], [165, 314], [325, 538], [544, 634], [640, 787], [795, 896], [1128, 1280]] as const;
const SCREENSHOTS = ['screenshot-facedetect.jpg', 'screenshot-faceid.jpg', 'screenshot-facematch.jpg'];

/** Ten distinct real pictures (seven photos, three screenshots), as a catalogue's stored copies. */
export async function realPictures(): Promise<RgbImage[]> {
  const out: RgbImage[] = [];
  for (const [from, to] of STRIP) out.push(await rgbOf(sharp(SAMPLES).extract({ left: from, top: 0, width: to - from, height: 157 }).resize({ height: 314 })));
  for (const name of SCREENSHOTS) out.push(await rgbOf(sharp(packageFile('@vladmandic/human', `assets/${name}`)).resize({ width: 640, withoutEnlargement: true })));
  return out;
}

function timeMs(fn: () => unknown): number {
  fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function timeMsAsync(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** Prints the stage table; `stored` reads 10 candidates' features of a service the way a query does. */
export async function rerankStages(stored?: { pool: pg.Pool; serviceId: string; pipeline: string; recordIds: number[] }): Promise<void> {
  const { cv } = await opencv();
  const photos = await realPictures();
  // The source (a photo of the collage whose 60 % crop verifies with the most inliers) is the 4th candidate.
  const ordered = [0, 1, 2, 4, 3, 5, 6, 7, 8, 9].map((i) => photos[i]!);
  const packed = ordered.map((p) => packLocalFeatures(extractLocalFeatures(cv, p, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures)));
  const source = ordered[3]!;
  const crop = { left: Math.round(source.width * 0.2), top: Math.round(source.height * 0.2), width: Math.round(source.width * 0.6), height: Math.round(source.height * 0.6) };
  const jpeg = await sharp(Buffer.from(source.data), { raw: { width: source.width, height: source.height, channels: 3 } }).extract(crop).jpeg({ quality: 85 }).toBuffer();
  const query = await rgbOf(sharp(jpeg));
  const unrelated = photoPixels(640, 480, 999);

  const candidates = packed.map(unpackLocalFeatures);
  const q = queryLocalFeatures(cv, query);
  const other = queryLocalFeatures(cv, unrelated);
  const verified = verifyCandidates(q, candidates);
  if (!verified[3]) throw new Error('rerank stages: the query does not verify its source; the table would measure nothing');
  const decisive = (verified[3]?.inliers ?? 0) >= VERIFY.decisiveInliers;
  const rows: (string | number)[][] = [
    [`ORB on the query (${query.width}×${query.height}, described at ≤ ${LOCAL_FEATURES.querySide} px, ≤ ${LOCAL_FEATURES.queryFeatures} keypoints)`, timeMs(() => queryLocalFeatures(cv, query))],
    ['unpacking 11 feature sets', timeMs(() => [packLocalFeatures(q), ...packed].map(unpackLocalFeatures))],
    [`verifying 10 candidates, the 4th the source (${decisive ? 'decisive: stops there' : 'not decisive: all 10'})`, timeMs(() => verifyCandidates(q, candidates))],
    ['the same, always verifying all 10', timeMs(() => verifyCandidates(q, candidates, { ...VERIFY, decisiveInliers: 0 }))],
    ['verifying 10 candidates, none the source', timeMs(() => verifyCandidates(other, candidates))],
    [`mirror-image pass (only when nothing verifies and the best vector score ≥ ${RERANK.mirrorMinScore}): ORB on the mirror image of a ${unrelated.width}×${unrelated.height} query + verifying 10`, timeMs(() => verifyMirrored(queryLocalFeatures(cv, unrelated, true), candidates))],
  ];
  // A query with a text banner across it: finding the band, and ORB with the band left out (as queries are
  // described) against ORB everywhere (as before the band was looked for), in the same run.
  const bannered = await rgbOf(
    sharp(Buffer.from(query.data), { raw: { width: query.width, height: query.height, channels: 3 } }).composite([
      {
        input: Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg" width="${query.width}" height="${query.height}"><rect x="0" y="${Math.round(query.height * 0.4)}" width="${query.width}" height="${Math.round(query.height * 0.2)}" fill="#2a46b0" opacity="0.85"/>` +
            `<text x="50%" y="${Math.round(query.height * 0.55)}" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${Math.round(query.height * 0.12)}" fill="white">SALE 50% OFF</text></svg>`,
        ),
      },
    ]),
  );
  if (!textBanner(bannered)) throw new Error('rerank stages: the banner query shows no banner; the rows below would measure nothing');
  rows.push(
    [`finding a text banner (text-banner.ts) on the ${bannered.width}×${bannered.height} query with one`, timeMs(() => textBanner(bannered))],
    ['ORB on that query, banner left out (as queries are described)', timeMs(() => queryLocalFeatures(cv, bannered))],
    ['ORB on that query, keypoints everywhere (before the banner was looked for)', timeMs(() => extractLocalFeatures(cv, bannered, wholeQuerySide(bannered), LOCAL_FEATURES.queryFeatures))],
  );
  if (stored) rows.push(['reading 10 candidates\' features from PostgreSQL', await timeMsAsync(() => itemFeatures(stored.pool, stored.serviceId, stored.pipeline, stored.recordIds))]);
  console.log(`Re-ranking stages, one thread, median of ${RUNS} (the source verified with ${verified[3]?.inliers ?? 0} inliers):\n`);
  printTable(['re-ranking stage', 'ms'], rows);
}
