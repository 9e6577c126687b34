/**
 * `npm run eval -- logo`: logo detection (_0000188) by instance matching, through the real inference tasks
 * (`logo-extract` to register, `logo-match` to query) on one inference thread.
 *
 * The set (eval/lib/logo-dataset.ts, seed `logo-eval`; thresholds were tuned on a different seed): 8 synthetic
 * brands (textured emblems with a word and a tagline, half with transparent margins) and the real artwork
 * shipped in opencv-doc and python3-skimage, each pasted into real photos and cluttered drawings with logo width
 * = scale × 30% of the picture (scale 0.3–1.5), rotation ±20°, perspective (half of the placements), JPEG
 * quality 90/70/50/30 and blur σ 0/0.8/1.5; pairs of brands in one picture; negatives: backgrounds alone and
 * backgrounds with look-alike logos nobody registered (same generator: same layouts, taglines, emblem styles).
 *
 * A detection is right when its brand is right and IoU ≥ 0.5 with the pasted artwork's box. Plus the classic
 * real photo pair of opencv-doc (box.png in box_in_scene.png).
 * Then the large-library case: the same queries with IRIS_EVAL_LOGO_EXTRA (default 100) more generated brands
 * registered that appear in no picture, matched exhaustively and through the descriptor-index shortlist.
 * IRIS_EVAL_LOGO_PLACEMENTS sets the placements per brand (default 12).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { median, percentile, printTable } from '../../scripts/table.js';
import { sharedImage } from '../src/domains/analysis/detect/vision-calls.js';
import { iou, type Box } from '../src/vision/logo/logo-geometry.js';
import { packableReference, packLibrary, type PackableReference } from '../src/domains/logos/logo-library.js';
import type { LibraryPayload, LogoDetection } from '../src/vision/logo/logo-matcher.js';
import { SHORTLIST } from '../src/vision/logo/logo-params.js';
import { decodeReference } from '../src/vision/logo/reference-image.js';
import { renderLogo } from '../test/support/logo-fixtures.js';
import { seededRandom } from '../src/util/seeded-random.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import type { LogoMatchResult } from '../src/inference/tasks/logo-match.task.js';
import { debianPackage, isMissing } from './lib/debian-datasets.js';
import { buildLogoDataset, type Conditions, type EvalQuery } from './lib/logo-dataset.js';

interface Registered {
  id: number;
  name: string;
  source: string;
  keypoints: number;
  refused?: string;
}

interface Outcome {
  query: EvalQuery;
  detections: LogoDetection[];
  /** Per truth: found (right brand, IoU ≥ 0.5) and its IoU. */
  truths: { brandId: number; conditions: Conditions; found: boolean; iou: number }[];
  falsePositives: LogoDetection[];
  result: LogoMatchResult;
  ms: number;
}

async function register(pool: InferencePool, id: number, bytes: Buffer): Promise<{ row: PackableReference; ms: number }> {
  const decoded = await decodeReference(bytes);
  const t0 = performance.now();
  const f = await pool.run('logo-extract', { image: decoded.rgba });
  const ms = performance.now() - t0;
  return { ms, row: packableReference(id * 100, id, f) };
}

function score(query: EvalQuery, detections: LogoDetection[]): Pick<Outcome, 'truths' | 'falsePositives'> {
  const used = new Set<number>();
  const truths = query.truths.map((t) => {
    let best = -1;
    let bestIou = 0;
    detections.forEach((d, i) => {
      if (used.has(i) || d.brandId !== t.brandId) return;
      const v = iou(d.box, t.box);
      if (v > bestIou) [best, bestIou] = [i, v];
    });
    const found = best >= 0 && bestIou >= 0.5;
    if (found) used.add(best);
    return { brandId: t.brandId, conditions: t.conditions, found, iou: bestIou };
  });
  return { truths, falsePositives: detections.filter((_, i) => !used.has(i)) };
}

async function runQueries(pool: InferencePool, queries: EvalQuery[], library: LibraryPayload, shortlist?: typeof SHORTLIST): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    const result = await pool.run('logo-match', { image: sharedImage(query.image), library, shortlist });
    const ms = performance.now() - t0;
    outcomes.push({ query, detections: result.detections, result, ms, ...score(query, result.detections) });
  }
  return outcomes;
}

function summary(outcomes: Outcome[]): { tp: number; fp: number; truths: number; precision: number; recall: number } {
  const truths = outcomes.flatMap((o) => o.truths);
  const tp = truths.filter((t) => t.found).length;
  const fp = outcomes.reduce((n, o) => n + o.falsePositives.length, 0);
  return { tp, fp, truths: truths.length, precision: tp / Math.max(1, tp + fp), recall: tp / Math.max(1, truths.length) };
}

const SYLLABLES = ['BRA', 'VO', 'TEL', 'MIR', 'SAN', 'KO', 'LUX', 'DEN', 'PRA', 'ZU', 'FER', 'NIX', 'GAL', 'TOR', 'ESS', 'QUA'];

/** Brands nobody pasted anywhere: they only make the library large (and must never be detected). */
async function extraReferences(pool: InferencePool, count: number): Promise<PackableReference[]> {
  const rand = seededRandom('logo-eval-extra');
  const rows: PackableReference[] = [];
  for (let i = 0; i < count; i++) {
    const word = Array.from({ length: 2 + Math.floor(rand() * 2) }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join('');
    const art = await renderLogo(`logo-eval-extra-${i}`, { transparent: i % 2 === 1, word });
    rows.push((await register(pool, 1000 + i, art.png)).row);
  }
  return rows;
}

async function largeLibrary(pool: InferencePool, queries: EvalQuery[], small: LibraryPayload, smallOutcomes: Outcome[], rows: PackableReference[]): Promise<void> {
  const extra = Number(process.env.IRIS_EVAL_LOGO_EXTRA ?? 100);
  const library = packLibrary('logo-eval-large', [...rows, ...(await extraReferences(pool, extra))])!;
  const exhaustive = { ...SHORTLIST, above: Number.MAX_SAFE_INTEGER };
  const mode = (lib: LibraryPayload) => (lib.references.length > SHORTLIST.above ? `shortlist (best ${SHORTLIST.size}, ≥ ${SHORTLIST.minVotes} votes)` : 'exhaustive');
  const runs: [string, Outcome[]][] = [
    [`${small.references.length} references, exhaustive`, await runQueries(pool, queries, small, exhaustive)],
    [`${small.references.length} references, ${mode(small)} (the results above)`, smallOutcomes],
    [`${library.references.length} references, exhaustive`, await runQueries(pool, queries, library, exhaustive)],
    [`${library.references.length} references, ${mode(library)}`, await runQueries(pool, queries, library)],
  ];
  console.log(`Large library: the same ${queries.length} queries with ${extra} more generated brands registered that appear in no picture.\n`);
  printTable(
    ['library', 'found', 'false detections', 'precision', 'recall', 'query median ms', 'query p90 ms', 'matching median ms'],
    runs.map(([label, outcomes]) => {
      const s = summary(outcomes);
      const ms = outcomes.map((o) => o.ms);
      return [label, `${s.tp} / ${s.truths}`, s.fp, Number(s.precision.toFixed(3)), Number(s.recall.toFixed(3)), Math.round(median(ms)), Math.round(percentile(ms, 90)), Math.round(median(outcomes.map((o) => o.result.timings.matchMs)))];
    }),
  );
}

const pct = (a: number, b: number) => (b ? Number(((100 * a) / b).toFixed(1)) : NaN);

function recallBy(outcomes: Outcome[], label: string, bucket: (c: Conditions) => string, order: string[]): void {
  const tally = new Map<string, { found: number; total: number }>();
  for (const o of outcomes) {
    for (const t of o.truths) {
      const key = bucket(t.conditions);
      const entry = tally.get(key) ?? { found: 0, total: 0 };
      entry.total++;
      if (t.found) entry.found++;
      tally.set(key, entry);
    }
  }
  printTable([label, 'instances', 'found', 'recall %'], order.filter((k) => tally.has(k)).map((k) => [k, tally.get(k)!.total, tally.get(k)!.found, pct(tally.get(k)!.found, tally.get(k)!.total)]));
}

async function rgbOf(file: string): Promise<RgbImage> {
  const { data, info } = await sharp(file).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** box.png in box_in_scene.png (opencv-doc): the box's outline in the scene, written down by hand. */
const BOX_IN_SCENE_TRUTH: Box = [0.186, 0.423, 0.35, 0.365];

async function realPair(pool: InferencePool): Promise<(string | number)[][]> {
  const pkg = debianPackage('opencv-doc');
  if (isMissing(pkg)) return [['box.png in box_in_scene.png', 'opencv-doc missing', '', '', '']];
  const dir = path.join(pkg.root, 'usr/share/doc/opencv-doc/examples/data');
  if (!existsSync(path.join(dir, 'box.png'))) return [];
  const { row } = await register(pool, 1, readFileSync(path.join(dir, 'box.png')));
  const library = packLibrary('real-pair', [row])!;
  const scene = await rgbOf(path.join(dir, 'box_in_scene.png'));
  const result = await pool.run('logo-match', { image: sharedImage(scene), library });
  const d = result.detections[0];
  return [['box.png in box_in_scene.png', result.detections.length, d ? Number(d.score.toFixed(3)) : '–', d ? Number(iou(d.box, BOX_IN_SCENE_TRUTH).toFixed(2)) : '–', d ? d.box.map((v) => v.toFixed(3)).join(', ') : '–']];
}

export default async function run(): Promise<void> {
  const placements = Number(process.env.IRIS_EVAL_LOGO_PLACEMENTS ?? 12);
  const built = performance.now();
  const dataset = await buildLogoDataset({ seed: 'logo-eval', syntheticBrands: 8, placements, backgrounds: 20, distractors: 8 });
  console.log(`Set generated in ${((performance.now() - built) / 1000).toFixed(1)} s; ${dataset.realBackgrounds} real photos among the backgrounds.${dataset.missing.length ? ` Missing packages: ${dataset.missing.join(', ')}.` : ''}\n`);

  const pool = new InferencePool(1);
  try {
    // Registration (the first task also loads OpenCV on the thread).
    const registered: Registered[] = [];
    const rows: PackableReference[] = [];
    const extractMs: number[] = [];
    for (const logo of dataset.logos) {
      try {
        const { row, ms } = await register(pool, logo.id, logo.bytes);
        rows.push(row);
        extractMs.push(ms);
        registered.push({ id: logo.id, name: logo.name, source: logo.source, keypoints: row.n_keypoints });
      } catch (err) {
        registered.push({ id: logo.id, name: logo.name, source: logo.source, keypoints: 0, refused: (err as Error).message });
      }
    }
    const library: LibraryPayload = packLibrary('logo-eval', rows)!;

    const outcomes = await runQueries(pool, dataset.queries, library);

    const truths = outcomes.flatMap((o) => o.truths);
    const tp = truths.filter((t) => t.found).length;
    const fp = outcomes.reduce((n, o) => n + o.falsePositives.length, 0);
    const negatives = outcomes.filter((o) => o.query.kind !== 'positive');
    const fpNegatives = negatives.filter((o) => o.falsePositives.length > 0).length;
    const precision = tp / Math.max(1, tp + fp);
    const recall = tp / Math.max(1, truths.length);
    const registeredTruths = truths.filter((t) => !registered.find((r) => r.id === t.brandId)?.refused);
    const tpRegistered = registeredTruths.filter((t) => t.found).length;
    printTable(
      ['brands (registered / refused)', 'queries (with logos / negatives)', 'instances', 'found', 'false detections', 'precision', 'recall', 'recall (registered brands)', 'F1', 'negatives with a detection', 'mean IoU of hits'],
      [[
        `${rows.length} / ${registered.length - rows.length}`,
        `${outcomes.length - negatives.length} / ${negatives.length}`,
        truths.length,
        tp,
        fp,
        Number(precision.toFixed(3)),
        Number(recall.toFixed(3)),
        Number((tpRegistered / Math.max(1, registeredTruths.length)).toFixed(3)),
        Number(((2 * precision * recall) / Math.max(1e-9, precision + recall)).toFixed(3)),
        `${fpNegatives} / ${negatives.length}`,
        Number((truths.filter((t) => t.found).reduce((s, t) => s + t.iou, 0) / Math.max(1, tp)).toFixed(3)),
      ]],
    );

    console.log('Recall by condition (every brand, the plain OpenCV artwork included):\n');
    recallBy(outcomes, 'scale (× 30% of width)', (c) => (c.scale < 0.6 ? '0.3–0.6' : c.scale < 0.9 ? '0.6–0.9' : c.scale < 1.2 ? '0.9–1.2' : '1.2–1.5'), ['0.3–0.6', '0.6–0.9', '0.9–1.2', '1.2–1.5']);
    recallBy(outcomes, '|rotation|', (c) => (Math.abs(c.rotation) < 7 ? '0–7°' : Math.abs(c.rotation) < 14 ? '7–14°' : '14–20°'), ['0–7°', '7–14°', '14–20°']);
    recallBy(outcomes, 'perspective', (c) => (c.tilt === 0 ? 'none' : Math.abs(c.tilt) < 0.15 ? 'tilt < 0.15' : 'tilt 0.15–0.3'), ['none', 'tilt < 0.15', 'tilt 0.15–0.3']);
    recallBy(outcomes, 'JPEG quality', (c) => String(c.jpeg), ['90', '70', '50', '30']);
    recallBy(outcomes, 'blur σ', (c) => String(c.blur), ['0', '0.8', '1.5']);

    console.log('Per brand:\n');
    printTable(
      ['brand', 'source', 'keypoints', 'instances', 'recall %', 'false detections of it'],
      registered.map((r) => {
        const mine = truths.filter((t) => t.brandId === r.id);
        const wrong = outcomes.reduce((n, o) => n + o.falsePositives.filter((d) => d.brandId === r.id).length, 0);
        return [r.name, r.source, r.refused ? `refused: ${r.refused}` : r.keypoints, mine.length, pct(mine.filter((t) => t.found).length, mine.length), wrong];
      }),
    );

    const first = outcomes[0]?.result.timings.opencvLoadMs ?? NaN;
    const ms = outcomes.map((o) => o.ms);
    printTable(
      ['OpenCV load (first task on a thread) ms', 'reference extraction median ms', 'library', 'query median ms', 'query p90 ms', 'features median ms', 'matching median ms', 'query keypoints median'],
      [[
        Math.round(first),
        Math.round(median(extractMs)),
        `${library.references.length} references, ${library.references.reduce((n, r) => n + r.count, 0)} keypoints`,
        Math.round(median(ms)),
        Math.round(percentile(ms, 90)),
        Math.round(median(outcomes.map((o) => o.result.timings.featuresMs))),
        Math.round(median(outcomes.map((o) => o.result.timings.matchMs))),
        median(outcomes.map((o) => o.result.keypoints)),
      ]],
    );

    await largeLibrary(pool, dataset.queries, library, outcomes, rows);

    console.log('Real photo (opencv-doc):\n');
    printTable(['pair', 'detections', 'score', 'IoU with the box written down by hand', 'box'], await realPair(pool));
  } finally {
    await pool.close();
  }
}
