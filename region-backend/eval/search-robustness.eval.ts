/**
 * `npm run eval -- search-robustness`: does visual search find the picture however the query was taken?
 *
 * Gallery: every test photo (Debian packages opencv-doc, python3-skimage, darknet, mate-backgrounds) among the
 * OpenCV manual's pictures as distractors. Queries: each test photo edited the ways shoppers' pictures are
 * (search-edits.ts: thumbnails of 128 and 96 px, a screenshot of a store page, a framed print, 50 % crops,
 * mirrored 50 % crops, ±5–10° rotations, grey-scale, a text banner, JPEG quality 15). Recall@1 and @10 per
 * edit for each stage of the search pipeline, so every stage shows what it adds:
 *
 *   single view     the vector of the whole picture on both sides (the pipeline before this evaluation)
 *   + thumb view    indexed vectors also see a thumbnail-sized copy of the picture (embedding-views.ts)
 *   + content box   a query showing the picture inside a page or frame is also embedded at that box
 *   + re-rank       the best candidates are verified by ORB matching and a RANSAC homography; when none
 *                   verifies but the vector is close, the query's quarter turns score them too (query-turns.ts)
 *   + regions       when nothing verified: the query's windows are pooled from one backbone pass, each one's
 *                   best hits are verified with the query's keypoints, and the best windows' hits with the
 *                   window's own keypoints (query-regions.ts)
 *
 * A second set of photos no other evaluation uses (region-edits.ts) is queried with the kinds where the picture
 * is only part of the query or turned: inside a collage of other photos at about 40 % of the width, turned by
 * 90°, 180° and 270°, photographed off a screen under strong perspective.
 *
 * Calibration: for every query, the score of the right picture (a positive) and the best score of any other
 * picture (a negative: what the top result would be if the picture were not in the gallery). The table gives
 * the precision of "score ≥ t means the same picture" for thresholds t.
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import { printTable } from '../../scripts/table.js';
import { opencv } from '../src/vision/runtime/opencv-runtime.js';
import { contentBox } from '../src/vision/embedding/content-box.js';
import { EMBEDDING_PIPELINE } from '../src/vision/embedding/embedding-info.js';
import { INDEX_VIEWS, QUERY_VIEWS } from '../src/vision/embedding/embedding-views.js';
import { l2normalise } from '../src/vision/embedding/feature-pooling.js';
import { VERIFY, verifyCandidates, verifyMirrored, type Verification } from '../src/vision/embedding/geometric-verify.js';
import { cropRgb, decodeImage, type ViewSpec } from '../src/vision/embedding/image-views.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures, queryLocalFeatures, wholeQuerySide, type LocalFeatures } from '../src/vision/embedding/local-features.js';
import { applyWhitening, decodeWhitening } from '../src/vision/embedding/pca-whitening.js';
import { RERANK, rerankScore, wantsMirrorPass } from '../src/vision/embedding/rerank-score.js';
import { textBanner, withoutRows } from '../src/vision/embedding/text-banner.js';
import { embedQueryRegions, QUERY_REGIONS, queryInset, queryRegions, REGION_SCAN, regionPixels, windowsToDescribe, type QueryRegion } from '../src/vision/embedding/query-regions.js';
import { featuresInWindow, windowsLocalFeatures } from '../src/vision/embedding/window-features.js';
import { QUERY_TURNS } from '../src/vision/embedding/query-turns.js';
import { readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { loadCollageHosts, loadHeldOutPhotos, loadRegionPhotos, loadTestPhotos } from './lib/debian-datasets.js';
import { itemKey, productionDescriptor, type EvalItem } from './lib/embedding-candidates.js';
import { loadPhoto } from './lib/image-variants.js';
import { dot } from './lib/retrieval-metrics.js';
import { makeSearchQuery, SEARCH_EDITS, type SearchEdit as PlainEdit } from './lib/search-edits.js';
import { makeRegionQuery, REGION_EDITS, type RegionEdit } from './lib/region-edits.js';

type SearchEdit = PlainEdit | RegionEdit;
const ALL_EDITS: readonly SearchEdit[] = [...SEARCH_EDITS, ...REGION_EDITS];

const LIMIT = process.env.IRIS_EVAL_LIMIT ? Number(process.env.IRIS_EVAL_LIMIT) : Infinity;
/** `IRIS_EVAL_SEARCH_SETS=regions` queries the region photos only (the first set's photos then stay out of the gallery too). */
const SETS = (process.env.IRIS_EVAL_SEARCH_SETS ?? 'first,regions').split(',');
/**
 * Quarter turns (query-turns.ts), as the search runs them: the best vector score from which they are tried
 * (IRIS_EVAL_TURNS, default the search's; `off`: never), and further bars for the turned score, each reported as
 * a stage of its own beside the search's in the same run (IRIS_EVAL_TURN_BAR, comma-separated).
 */
const TURNS = process.env.IRIS_EVAL_TURNS === 'off' ? null : Number(process.env.IRIS_EVAL_TURNS ?? QUERY_TURNS.minScore);
const TURN_BARS = TURNS === null ? [] : (process.env.IRIS_EVAL_TURN_BAR ?? '').split(',').filter(Boolean).map(Number).filter((v) => Number.isFinite(v));
const log = (msg: string) => process.stderr.write(`[search eval] ${msg}\n`);
/**
 * The region pass's settings, to try others than the search's: the size of the view the windows are pooled from,
 * the windows verified with their own keypoints, and where those come from (`shared`: one description of the
 * whole query at the windows' scale, as the search does; `each`: one ORB run per window, cut out).
 */
const REGION_SETTINGS = {
  scan: { ...REGION_SCAN, size: Number(process.env.IRIS_EVAL_REGION_SCAN ?? REGION_SCAN.size) },
  windowKeypoints: Number(process.env.IRIS_EVAL_WINDOW_KEYPOINTS ?? QUERY_REGIONS.windowKeypoints),
  windowOrb: process.env.IRIS_EVAL_WINDOW_ORB === 'each' ? ('each' as const) : ('shared' as const),
  /** The picture pasted inside the query (inset-box.ts): its best new hit taken unverified from this score (`off`: no inset). */
  insetBar: process.env.IRIS_EVAL_INSET_BAR === 'off' ? null : Number(process.env.IRIS_EVAL_INSET_BAR ?? QUERY_REGIONS.insetBar),
};

interface Query {
  photo: number;
  edit: SearchEdit;
  bytes: Buffer;
}

function item(bytes: Buffer, ...key: string[]): EvalItem {
  return { key: itemKey(bytes, ...key), load: async () => (await decodeImage(bytes)).rgb };
}

function rgbItem(rgb: RgbImage, key: string): EvalItem {
  return { key: itemKey(key), width: rgb.width, height: rgb.height, load: async () => rgb };
}

const whitening = decodeWhitening(readFileSync(fileURLToPath(new URL(`../src/vision/embedding/${EMBEDDING_PIPELINE.whitening.file}`, import.meta.url)))).whitening;

/** The production vector of an item under a list of views (pooled per view and block, summed, whitened). */
async function vectorOf(it: EvalItem, views: readonly ViewSpec[]): Promise<Float32Array> {
  let sum: Float32Array | null = null;
  for (const view of views) {
    const v = await productionDescriptor(it, view);
    sum ??= new Float32Array(v.length);
    for (let k = 0; k < v.length; k++) sum[k] = sum[k]! + v[k]!;
  }
  return applyWhitening(whitening, l2normalise(sum!));
}

interface Stage {
  id: string;
  r1: Map<SearchEdit, number>;
  r10: Map<SearchEdit, number>;
  positives: number[];
  negatives: number[];
}

const newStage = (id: string): Stage => ({ id, r1: new Map(), r10: new Map(), positives: [], negatives: [] });

function record(stage: Stage, edit: SearchEdit, ranked: { index: number; score: number }[], target: number): void {
  const rank = ranked.findIndex((r) => r.index === target);
  if (rank === 0) stage.r1.set(edit, (stage.r1.get(edit) ?? 0) + 1);
  if (rank >= 0 && rank < 10) stage.r10.set(edit, (stage.r10.get(edit) ?? 0) + 1);
  const own = ranked.find((r) => r.index === target);
  stage.positives.push(own?.score ?? 0);
  stage.negatives.push(ranked.find((r) => r.index !== target)?.score ?? 0);
}

/** The vector stores' score: cosine mapped to [0, 1]. */
const similarity = (a: Float32Array, b: Float32Array) => (1 + dot(a, b)) / 2;

function rank(scores: Float32Array | number[]): { index: number; score: number }[] {
  return Array.from(scores, (score, index) => ({ index, score })).sort((a, b) => b.score - a.score);
}

export default async function run(): Promise<void> {
  const started = Date.now();
  const tests = loadTestPhotos();
  const held = loadHeldOutPhotos();
  const regionPhotos = loadRegionPhotos();
  const hostFiles = loadCollageHosts();
  for (const m of [...tests.missing, ...held.missing, ...regionPhotos.missing, ...hostFiles.missing]) console.log(`> Skipped data from Debian package \`${m.pkg}\`: ${m.reason}\n`);
  if (!tests.photos.length) {
    console.log('No test photos available: search robustness evaluation skipped.');
    return;
  }
  const { cv } = await opencv();

  // Gallery: test photos first (index = photo number), then distractors.
  const galleryRgb: RgbImage[] = [];
  const galleryItems: EvalItem[] = [];
  const queries: Query[] = [];
  const photoIds: string[] = [];
  for (const file of SETS.includes('first') ? tests.photos.slice(0, LIMIT) : []) {
    const photo = await loadPhoto(file.path);
    for (const edit of SEARCH_EDITS) queries.push({ photo: galleryItems.length, edit, bytes: await makeSearchQuery(photo, edit, file.id) });
    galleryItems.push(item(photo.png));
    galleryRgb.push((await decodeImage(photo.png)).rgb);
    photoIds.push(file.id);
  }
  const hosts = await Promise.all(hostFiles.photos.map((f) => loadPhoto(f.path)));
  for (const file of hosts.length && SETS.includes('regions') ? regionPhotos.photos.slice(0, LIMIT) : []) {
    const photo = await loadPhoto(file.path);
    for (const edit of REGION_EDITS) queries.push({ photo: galleryItems.length, edit, bytes: await makeRegionQuery(photo, edit, file.id, hosts) });
    galleryItems.push(item(photo.png));
    galleryRgb.push((await decodeImage(photo.png)).rgb);
    photoIds.push(file.id);
  }
  const photos = galleryItems.length;
  // Distractors: the OpenCV manual's pictures, except those that show a test photo (the manual reuses some,
  // cropped or resized): close vectors, or a geometric match with many inliers.
  const testVectors = await Promise.all(galleryItems.map((it) => vectorOf(it, QUERY_VIEWS)));
  const testFeatures = galleryRgb.map((rgb) => extractLocalFeatures(cv, rgb, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures));
  let dropped = 0;
  for (const file of held.photos.slice(0, LIMIT === Infinity ? Infinity : LIMIT * 3)) {
    const photo = await loadPhoto(file.path);
    if (Math.min(photo.width, photo.height) < 96) continue;
    const candidate = item(photo.png);
    const rgb = (await decodeImage(photo.png)).rgb;
    const v = await vectorOf(candidate, QUERY_VIEWS);
    const shows = verifyCandidates(extractLocalFeatures(cv, rgb, LOCAL_FEATURES.querySide, LOCAL_FEATURES.queryFeatures), testFeatures);
    if (testVectors.some((t) => dot(t, v) > 0.8) || shows.some((m) => m && m.inliers >= 40)) {
      dropped++;
      continue;
    }
    galleryItems.push(candidate);
    galleryRgb.push(rgb);
  }
  log(`${dropped} distractors dropped as near-duplicates of test photos`);
  log(`${photos} test photos, gallery of ${galleryItems.length}, ${queries.length} queries`);

  const gallerySingle: Float32Array[] = [];
  const galleryMulti: Float32Array[] = [];
  const galleryFeatures: LocalFeatures[] = [];
  let featureBytes = 0;
  for (const [i, it] of galleryItems.entries()) {
    gallerySingle.push(await vectorOf(it, QUERY_VIEWS));
    galleryMulti.push(await vectorOf(it, INDEX_VIEWS));
    const f = extractLocalFeatures(cv, galleryRgb[i]!, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures);
    featureBytes += packLocalFeatures(f).byteLength;
    galleryFeatures.push(f);
    if ((i + 1) % 100 === 0) log(`gallery ${i + 1}/${galleryItems.length}`);
  }

  const stages = [newStage('single view'), newStage('+ thumb view'), newStage('+ content box'), newStage('+ text banner'), newStage('+ re-rank'), newStage('+ regions')];
  const turnStages = TURN_BARS.map((bar) => [bar, newStage(`+ turns ≥ ${bar}`)] as const);
  const regions = queryRegions();
  let regionPasses = 0;
  let insetsFound = 0;
  let insetsTaken = 0;
  let insetsWrong = 0;
  let regionWins = 0;
  const regionWinners = new Map<string, number>();
  const perEditCount = new Map<SearchEdit, number>();
  let rerankMs = 0;
  let regionMs = 0;
  let windowOrbMs = 0;
  const bestWindowRank: number[] = [];
  let orbMs = 0;
  let plainOrbMs = 0;
  let verified = 0;
  let falseVerified = 0;
  let boxes = 0;
  let banners = 0;
  let mirrorPasses = 0;
  let turnPasses = 0;
  const failures: (string | number)[][] = [];
  for (const [qi, q] of queries.entries()) {
    perEditCount.set(q.edit, (perEditCount.get(q.edit) ?? 0) + 1);
    const decoded = (await decodeImage(q.bytes)).rgb;
    const whole = await vectorOf(item(q.bytes), QUERY_VIEWS);
    const single = gallerySingle.map((g) => similarity(whole, g));
    const multi = galleryMulti.map((g) => similarity(whole, g));
    record(stages[0]!, q.edit, rank(single), q.photo);
    record(stages[1]!, q.edit, rank(multi), q.photo);

    const box = contentBox(decoded);
    let combined = multi;
    if (box) {
      boxes++;
      const crop = await cropRgb(decoded, box);
      const inner = await vectorOf(rgbItem(crop, `${itemKey(q.bytes)}/box/${box.join(',')}`), QUERY_VIEWS);
      combined = galleryMulti.map((g, i) => Math.max(multi[i]!, similarity(inner, g)));
    }
    record(stages[2]!, q.edit, rank(combined), q.photo);

    const banner = textBanner(decoded);
    if (banner) {
      banners++;
      const rest = withoutRows(decoded, banner);
      const clear = await vectorOf(rgbItem(rest, `${itemKey(q.bytes)}/banner/${banner.top},${banner.height}`), QUERY_VIEWS);
      const withBox = combined;
      combined = galleryMulti.map((g, i) => Math.max(withBox[i]!, similarity(clear, g)));
    }
    const ranked = rank(combined);
    record(stages[3]!, q.edit, ranked, q.photo);

    const t0 = performance.now();
    // As the search does: the query's features; its mirror image's when nothing verifies but the vector is sure.
    const head = ranked.slice(0, RERANK.candidates);
    let verifications = verifyCandidates(queryLocalFeatures(cv, decoded), head.map((r) => galleryFeatures[r.index]!));
    if (wantsMirrorPass(verifications, head[0]!.score)) {
      mirrorPasses++;
      verifications = verifyMirrored(queryLocalFeatures(cv, decoded, true), head.map((r) => (r.score >= RERANK.mirrorMinScore ? galleryFeatures[r.index]! : null)));
    }
    const reranked = head.map((r, k) => {
      const v: Verification | null = verifications[k] ?? null;
      if (v) verified++;
      if (v && r.index !== q.photo) {
        falseVerified++;
        log(`false verification: ${q.edit} of photo ${q.photo} matched gallery ${r.index} with ${v.inliers} inliers`);
      }
      return { index: r.index, score: rerankScore(r.score, v) };
    });
    rerankMs += performance.now() - t0;
    // The same query's ORB as described before text banners were looked for, against today's, in this run.
    const t1 = performance.now();
    queryLocalFeatures(cv, decoded);
    const t2 = performance.now();
    extractLocalFeatures(cv, decoded, wholeQuerySide(decoded), LOCAL_FEATURES.queryFeatures);
    orbMs += t2 - t1;
    plainOrbMs += performance.now() - t2;
    // As the search does (query-turns.ts): when nothing verified but the best vector score is at least TURNS, each
    // candidate also scores the best of the query turned by 90°, 180° and 270° (three more views), counted from
    // the search's bar on (other bars: stages of their own). The right picture's turned scores are logged.
    let turnedBest: number[] | null = null;
    if (TURNS !== null && !verifications.some(Boolean) && head[0]!.score >= TURNS) {
      turnPasses++;
      const raw = { raw: { width: decoded.width, height: decoded.height, channels: 3 as const } };
      const turned = await Promise.all(
        QUERY_TURNS.angles.map(async (angle) => {
          const { data, info } = await sharp(Buffer.from(decoded.data), raw).rotate(angle).raw().toBuffer({ resolveWithObject: true });
          return vectorOf(rgbItem({ data: new Uint8Array(data), width: info.width, height: info.height }, `${itemKey(q.bytes)}/turn/${angle}`), QUERY_VIEWS);
        }),
      );
      log(`turns for ${q.edit} of photo ${q.photo}: ${turned.map((t) => similarity(t, galleryMulti[q.photo]!).toFixed(3)).join(' ')}`);
      turnedBest = reranked.map((r) => Math.max(...turned.map((t) => similarity(t, galleryMulti[r.index]!))));
    }
    const withTurns = (bar: number) => [
      ...reranked.map((r, k) => ({ ...r, score: turnedBest && turnedBest[k]! >= bar ? Math.max(r.score, turnedBest[k]!) : r.score })).sort((a, b) => b.score - a.score),
      ...ranked.slice(RERANK.candidates),
    ];
    const finalRanking = withTurns(QUERY_TURNS.bar);
    record(stages[4]!, q.edit, finalRanking, q.photo);

    // Nothing verified: the query's windows, each one's best hits verified with the query's keypoints.
    let withRegions = finalRanking;
    let promoted: { index: number; score: number }[] = [];
    if (!verifications.some(Boolean)) {
      regionPasses++;
      const tried = new Set(head.map((r) => r.index));
      const picked = new Map<number, { score: number; region: number }>();
      const t3 = performance.now();
      const windowVectors = await embedQueryRegions(decoded, regions, undefined, REGION_SETTINGS.scan);
      // As the search does: a picture pasted inside the query joins the windows as one more region.
      const inset = REGION_SETTINGS.insetBar === null ? null : await queryInset(decoded, QUERY_VIEWS);
      regionMs += performance.now() - t3;
      const allRegions: QueryRegion[] = inset ? [...regions, { box: inset.box }] : regions;
      const regionVectors = inset ? [...windowVectors, inset.vector] : windowVectors;
      const rankings = regionVectors.map((v) => rank(galleryMulti.map((g) => similarity(v, g))));
      const insetBest = inset ? rankings[regions.length]![0] : undefined;
      if (inset) {
        insetsFound++;
        log(`inset for ${q.edit} of photo ${q.photo}: box ${inset.box.map((v) => v.toFixed(3)).join(',')}, best hit ${insetBest?.index}@${insetBest?.score.toFixed(3)}, right ${similarity(inset.vector, galleryMulti[q.photo]!).toFixed(3)}`);
      }
      const bests = rankings.map((list) => list.filter((r) => !tried.has(r.index)));
      bestWindowRank.push(Math.min(...rankings.map((list) => list.findIndex((r) => r.index === q.photo))) + 1);
      for (const [ri, list] of bests.entries()) {
        for (const r of list.slice(0, QUERY_REGIONS.hitsPerRegion)) if ((picked.get(r.index)?.score ?? -1) < r.score) picked.set(r.index, { score: r.score, region: ri });
      }
      const extra = [...picked.entries()];
      const checks = verifyCandidates(queryLocalFeatures(cv, decoded), extra.map(([index]) => galleryFeatures[index]!));
      const found = new Map(extra.flatMap(([index, p], k) => (checks[k] ? [[index, { index, score: rerankScore(p.score, checks[k]!), region: p.region }] as const] : [])));
      // The windows whose best new hit scores highest: their hits verified with the window's own keypoints
      // (the whole query's candidates its keypoints rejected included).
      const t4 = performance.now();
      const shared = REGION_SETTINGS.windowOrb === 'shared' ? windowsLocalFeatures(cv, decoded, QUERY_REGIONS.side) : null;
      for (const ri of windowsToDescribe(rankings.map((list) => list[0]?.score ?? 0), REGION_SETTINGS.windowKeypoints)) {
        const own = shared ? featuresInWindow(shared, allRegions[ri]!.box) : queryLocalFeatures(cv, await regionPixels(decoded, allRegions[ri]!));
        const list = rankings[ri]!.slice(0, QUERY_REGIONS.hitsPerWindow).filter((r) => !found.has(r.index));
        verifyCandidates(own, list.map((r) => galleryFeatures[r.index]!)).forEach((v, k) => {
          if (v) found.set(list[k]!.index, { index: list[k]!.index, score: rerankScore(list[k]!.score, v), region: ri });
        });
      }
      windowOrbMs += performance.now() - t4;
      // The inset's best hit, unverified, when its vector is that close (a pasted picture keypoints miss; the
      // whole query's keypoints may have rejected it, as it fills a small part of the query).
      if (insetBest && REGION_SETTINGS.insetBar !== null && insetBest.score >= REGION_SETTINGS.insetBar && !found.has(insetBest.index)) {
        insetsTaken++;
        if (insetBest.index !== q.photo) insetsWrong++;
        found.set(insetBest.index, { index: insetBest.index, score: insetBest.score, region: regions.length });
      }
      const won = [...found.values()].sort((a, b) => b.score - a.score);
      for (const w of won) {
        if (w.index !== q.photo) log(`false region verification: ${q.edit} of photo ${q.photo} matched gallery ${w.index}`);
      }
      if (won.length) {
        regionWins++;
        const name = won[0]!.region === regions.length ? 'inset' : `window ${regions[won[0]!.region]!.box.join(',')}`;
        regionWinners.set(name, (regionWinners.get(name) ?? 0) + 1);
        promoted = won;
        withRegions = [...won, ...finalRanking.filter((r) => !won.some((w) => w.index === r.index))];
      }
    }
    record(stages[5]!, q.edit, withRegions, q.photo);
    for (const [bar, stage] of turnStages) {
      const turnedRanking = withTurns(bar);
      record(stage, q.edit, [...promoted, ...turnedRanking.filter((r) => !promoted.some((w) => w.index === r.index))], q.photo);
    }
    const finalRank = withRegions.findIndex((r) => r.index === q.photo);
    if (finalRank !== 0) {
      const vectorRank = ranked.findIndex((r) => r.index === q.photo);
      const own = verifications[head.findIndex((r) => r.index === q.photo)] ?? null;
      // How far the right picture is from verifying: the same match without the acceptance thresholds.
      const loose = verifyCandidates(queryLocalFeatures(cv, decoded), [galleryFeatures[q.photo]!], { ...VERIFY, minInliers: 4, minInlierShare: 0, minSpread: 0, decisiveInliers: 0 })[0];
      failures.push([q.edit, photoIds[q.photo]!, finalRank + 1, vectorRank + 1, ranked[vectorRank]!.score, ranked.find((r) => r.index !== q.photo)!.score, own ? own.inliers : vectorRank < RERANK.candidates ? 'rejected' : 'not re-ranked', loose ? loose.inliers : 0]);
      if (process.env.IRIS_EVAL_DUMP) writeFileSync(`${process.env.IRIS_EVAL_DUMP}/${q.edit}-${q.photo}.jpg`, q.bytes);
    }
    if ((qi + 1) % 100 === 0) log(`queries ${qi + 1}/${queries.length}`);
  }

  console.log(
    `${photos} test photos among ${galleryItems.length} gallery pictures (the rest from the OpenCV manual); ${queries.length} queries ` +
      `(${SEARCH_EDITS.length} edits per test photo, ${REGION_EDITS.length} per region photo). Content box found in ${boxes} queries, text banner in ${banners}; ${verified} candidates verified, ${falseVerified} of them wrongly; mirror-image pass in ${mirrorPasses} queries; turns tried in ${turnPasses}; ` +
      `region pass (${regions.length} regions) in ${regionPasses} queries, a picture pasted inside the query found in ${insetsFound} of them and taken unverified in ${insetsTaken} (${insetsWrong} wrongly); a region won in ${regionWins} (${[...regionWinners].map(([k, n]) => `${k}: ${n}`).join(', ')}); the regions' vectors took ${(regionMs / Math.max(1, regionPasses)).toFixed(1)} ms per region pass and the windows' own keypoints and verification ${(windowOrbMs / Math.max(1, regionPasses)).toFixed(1)} ms (one thread); the right picture's best rank among a window's hits: ${bestWindowRank.join(' ')}.\n`,
  );
  const share = (m: Map<SearchEdit, number>, e: SearchEdit) => (m.get(e) ?? 0) / (perEditCount.get(e) ?? 1);
  const overall = (m: Map<SearchEdit, number>, edits: readonly SearchEdit[] = ALL_EDITS) =>
    edits.reduce((a, e) => a + (m.get(e) ?? 0), 0) / edits.reduce((a, e) => a + (perEditCount.get(e) ?? 0), 0);
  const tableRows = (m: (s: Stage) => Map<SearchEdit, number>) => [
    ...ALL_EDITS.filter((e) => perEditCount.has(e)).map((e) => [e, ...stages.map((s) => share(m(s), e))]),
    ...(perEditCount.has(SEARCH_EDITS[0]!) ? [['overall (first set)', ...stages.map((s) => overall(m(s), SEARCH_EDITS))]] : []),
    ...(perEditCount.has(REGION_EDITS[0]!) ? [['overall (region set)', ...stages.map((s) => overall(m(s), REGION_EDITS))]] : []),
    ['overall', ...stages.map((s) => overall(m(s)))],
  ];
  console.log('Recall@1 per edit and stage:\n');
  printTable(['edit', ...stages.map((s) => s.id)], tableRows((s) => s.r1));
  console.log('Recall@10 per edit and stage:\n');
  printTable(['edit', ...stages.map((s) => s.id)], tableRows((s) => s.r10));

  console.log('Queries whose picture is not first after re-ranking:\n');
  printTable(['edit', 'photo', 'final rank', 'vector rank', 'its vector score', 'best other vector score', 'verification', 'loose inliers'], failures);

  console.log('Calibration of the final score (positives: the right picture; negatives: the best other picture of each query):\n');
  const final = stages[stages.length - 1]!;
  const rows: (string | number)[][] = [];
  for (const t of [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]) {
    const tp = final.positives.filter((s) => s >= t).length;
    const fp = final.negatives.filter((s) => s >= t).length;
    rows.push([t, tp + fp ? tp / (tp + fp) : 1, tp / final.positives.length, fp]);
  }
  printTable(['threshold', 'precision', 'recall', 'false matches'], rows);
  if (turnStages.length) {
    console.log(`Quarter turns tried from a best vector score of ${TURNS}: recall@1 per edit and the final score's calibration, the search as it runs (turned scores from ${QUERY_TURNS.bar}) and with the turned score counted from each other bar (Infinity: no turns):\n`);
    const variants: Stage[] = [final, ...turnStages.map(([, stage]) => stage)];
    const at = (s: Stage, t: number) => {
      const tp = s.positives.filter((v) => v >= t).length;
      const fp = s.negatives.filter((v) => v >= t).length;
      return [tp + fp ? tp / (tp + fp) : 1, fp];
    };
    const edits = ALL_EDITS.filter((e) => perEditCount.has(e));
    printTable(
      ['stage', ...edits, 'overall', 'precision at 0.8', 'false matches ≥ 0.8', 'false matches ≥ 0.85'],
      variants.map((s) => [s.id, ...edits.map((e) => share(s.r1, e)), overall(s.r1), at(s, 0.8)[0]!, at(s, 0.8)[1]!, at(s, 0.85)[1]!]),
    );
  }
  console.log(
    `Re-ranking cost: ${(rerankMs / queries.length).toFixed(1)} ms per query (query ORB + ${RERANK.candidates} verifications, one thread); ` +
      `stored local features ${(featureBytes / galleryItems.length / 1024).toFixed(1)} kB per picture on average, vector ${EMBEDDING_PIPELINE.whitening.dim * 4} B. ` +
      `The query's ORB: ${(orbMs / queries.length).toFixed(1)} ms with the text-banner search (the band left out), ${(plainOrbMs / queries.length).toFixed(1)} ms without (same queries, same run).`,
  );
  console.log(`Evaluation wall time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
}
