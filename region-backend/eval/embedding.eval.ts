/**
 * `npm run eval -- embedding`: which image embedding Iris uses for visual search and training, by measurement.
 *
 * (a) Near-duplicate retrieval: every real photo (Debian packages opencv-doc, python3-skimage, darknet,
 *     mate-backgrounds) is indexed among the other photos and crops of them; it is then queried with strong
 *     crops, flips, rescales, low-quality JPEG, colour shifts, text/logo/rectangle overlays and a mix; recall@1
 *     and recall@10 per transformation and overall.
 * (b) Category retrieval on Fashion-MNIST (dataset-fashion-mnist): precision@10, queries vs a disjoint gallery.
 *
 * Candidates: colour histogram; nsfwjs MobileNetV2-Mid (graph) at several views; nsfwjs MobileNetV2 and
 * InceptionV3 (layers; InceptionV3 only with IRIS_EVAL_SLOW=1, ~0.4 s per image); CenterNet's MobileNetV3
 * backbone. Each pooled four ways (GAP, GeM, MAC, R-MAC) and whitened three ways (PCA, PCA-whitening to 256 and
 * 128 dimensions) learned on held-out pictures (the OpenCV manual's), never on the test photos.
 *
 * `npm run eval -- embedding --fit` also rewrites the shipped whitening file of the production configuration.
 * Embeddings are cached per image and view under IRIS_EVAL_CACHE (default .iris/eval-cache).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printTable } from '../../scripts/table.js';
import { l2normalise, POOLINGS, type Pooling } from '../src/vision/embedding/feature-pooling.js';
import { decodeImage, type ViewSpec } from '../src/vision/embedding/image-views.js';
import { applyWhitening, decodeWhitening, encodeWhitening, pcaBasis, whiteningFromBasis, type PcaBasis, type Whitening } from '../src/vision/embedding/pca-whitening.js';
import { EMBEDDING_PIPELINE } from '../src/vision/embedding/embedding-info.js';
import { SCENARIO_CONFIGS, type ScenarioConfig } from '../src/vision/embedding/scenario-config.js';
import {
  balancedSample,
  FASHION_MNIST_CLASSES,
  fashionMnistRgb,
  isMissing,
  loadFashionMnist,
  loadHeldOutPhotos,
  loadTestPhotos,
  type MissingPackage,
} from './lib/debian-datasets.js';
import { BACKBONES, backboneDescriptors, cachedPcaBasis, histogramDescriptor, itemKey, joinLayers, layerDescriptors, productionDescriptor, type BackboneId, type DescriptorSet, type EvalItem, type MidLayer } from './lib/embedding-candidates.js';
import { loadPhoto, makeDistractorCrops, makeQuery, makeTrainingViews, QUERY_TRANSFORMS, type QueryTransform } from './lib/image-variants.js';
import { dot, precisionAtK, rankOf } from './lib/retrieval-metrics.js';

interface Config {
  id: string;
  backbone: BackboneId | 'hist';
  views: ViewSpec[];
}

const SQ224: ViewSpec = { size: 224, fit: 'squash' };
const ASP224: ViewSpec = { size: 224, fit: 'aspect' };
const SLOW = process.env.IRIS_EVAL_SLOW === '1';
/** In order of interest: partial results are printed after each one. IRIS_EVAL_CONFIGS=id,id keeps only those (and the baseline). */
const ALL_CONFIGS: Config[] = [
  { id: 'colour histogram', backbone: 'hist', views: [] },
  { id: 'mnv2mid asp224', backbone: 'mnv2mid', views: [ASP224] },
  { id: 'mnv2mid sq224', backbone: 'mnv2mid', views: [SQ224] },
  { id: 'mnv2 sq224', backbone: 'mnv2', views: [SQ224] },
  { id: 'centernet sq512', backbone: 'centernet', views: [{ size: 512, fit: 'squash' }] },
  { id: 'mnv2mid asp224+flip', backbone: 'mnv2mid', views: [ASP224, { ...ASP224, flip: true }] },
  ...(SLOW
    ? [
        { id: 'mnv2mid asp320', backbone: 'mnv2mid' as const, views: [{ size: 320, fit: 'aspect' as const }] },
        { id: 'mnv2mid asp224+asp320', backbone: 'mnv2mid' as const, views: [ASP224, { size: 320, fit: 'aspect' as const }] },
        { id: 'inception sq299', backbone: 'inception' as const, views: [{ size: 299, fit: 'squash' as const }] },
      ]
    : []),
];
const ONLY = process.env.IRIS_EVAL_CONFIGS?.split(',').map((s) => s.trim()).filter(Boolean);
const CONFIGS = ONLY?.length ? ALL_CONFIGS.filter((c) => c.backbone === 'hist' || ONLY.includes(c.id)) : ALL_CONFIGS;

type Whiten = 'raw' | 'pca256' | 'pcaw256' | 'pcaw128';
const WHITENINGS: { id: Whiten; dim: number; power: number }[] = [
  { id: 'pca256', dim: 256, power: 0 },
  { id: 'pcaw256', dim: 256, power: 0.5 },
  { id: 'pcaw128', dim: 128, power: 0.5 },
];
/** Added to every eigenvalue, relative to their mean, before whitening (regularises the smallest). */
const SHRINK = Number(process.env.IRIS_EVAL_SHRINK ?? EMBEDDING_PIPELINE.whitening.shrink);

/** Smoke runs: IRIS_EVAL_LIMIT=N keeps N photos of each kind (and N/2 Fashion-MNIST images per class). */
const LIMIT = process.env.IRIS_EVAL_LIMIT ? Number(process.env.IRIS_EVAL_LIMIT) : Infinity;

const log = (msg: string) => process.stderr.write(`[embedding eval] ${msg}\n`);

interface NearDupSet {
  gallery: EvalItem[];
  /** Which photo each gallery item comes from. */
  galleryPhoto: number[];
  /** Index in `gallery` of each photo's own (unedited) image. */
  originals: number[];
  queries: { item: EvalItem; photo: number; transform: QueryTransform }[];
}

function bytesItem(bytes: Buffer, width?: number, height?: number): EvalItem {
  return { key: itemKey(bytes), ...(width ? { width, height } : {}), load: async () => (await decodeImage(bytes)).rgb };
}

async function buildNearDup(): Promise<{ set: NearDupSet; photoIds: string[]; missing: MissingPackage[] }> {
  const { photos, missing } = loadTestPhotos();
  const set: NearDupSet = { gallery: [], galleryPhoto: [], originals: [], queries: [] };
  for (const [index, file] of photos.slice(0, LIMIT).entries()) {
    const photo = await loadPhoto(file.path);
    set.originals.push(set.gallery.length);
    set.gallery.push(bytesItem(photo.png, photo.width, photo.height));
    set.galleryPhoto.push(index);
    for (const crop of await makeDistractorCrops(photo, 3)) {
      set.gallery.push(bytesItem(crop));
      set.galleryPhoto.push(index);
    }
    for (const transform of QUERY_TRANSFORMS) set.queries.push({ item: bytesItem(await makeQuery(photo, transform, file.id)), photo: index, transform });
  }
  return { set, photoIds: photos.slice(0, LIMIT).map((p) => p.id), missing };
}

async function buildHeldOut(): Promise<{ items: EvalItem[]; photoOf: number[]; originals: number[]; missing: MissingPackage[] }> {
  const { photos, missing } = loadHeldOutPhotos();
  const items: EvalItem[] = [];
  const photoOf: number[] = [];
  const originals: number[] = [];
  for (const [index, file] of photos.slice(0, LIMIT).entries()) {
    const photo = await loadPhoto(file.path);
    if (Math.min(photo.width, photo.height) < 128) continue;
    originals.push(items.length);
    for (const view of await makeTrainingViews(photo, file.id, 1)) {
      items.push(bytesItem(view));
      photoOf.push(index);
    }
  }
  return { items, photoOf, originals, missing };
}

interface FashionSet {
  gallery: EvalItem[];
  galleryLabels: number[];
  queries: EvalItem[];
  queryLabels: number[];
}

function buildFashion(): FashionSet | MissingPackage {
  const data = loadFashionMnist('test');
  if (isMissing(data)) return data;
  const item = (i: number): EvalItem => {
    const rgb = fashionMnistRgb(data, i);
    return { key: itemKey('fashion-mnist-test', String(i)), width: 28, height: 28, load: async () => rgb };
  };
  // Per class: IRIS_EVAL_FASHION=gallery,queries (default 60,20: 600 vs 200 images, a few minutes per candidate).
  const [g = 60, q = 20] = (process.env.IRIS_EVAL_FASHION ?? '').split(',').filter(Boolean).map(Number);
  const perClass = Math.min(g, Math.ceil(LIMIT / 2));
  const gallery = balancedSample(data.labels, perClass);
  const queries = balancedSample(data.labels, Math.min(q, Math.ceil(perClass / 3)), perClass);
  return {
    gallery: gallery.map(item),
    galleryLabels: gallery.map((i) => data.labels[i]!),
    queries: queries.map(item),
    queryLabels: queries.map((i) => data.labels[i]!),
  };
}

/** Descriptor sets of a config for a list of items: per pooling, the normalised sum over views. */
async function describeAll(config: Config, items: EvalItem[], label: string): Promise<DescriptorSet[]> {
  const out: DescriptorSet[] = [];
  let computed = 0;
  const started = Date.now();
  for (const [i, item] of items.entries()) {
    if (config.backbone === 'hist') {
      out.push(await histogramDescriptor(item));
      continue;
    }
    const combined: DescriptorSet = {};
    for (const view of config.views) {
      const { set, cached } = await backboneDescriptors(BACKBONES[config.backbone], item, view);
      if (!cached) computed++;
      for (const p of POOLINGS) {
        const v = l2normalise(Float32Array.from(set[p]!));
        const acc = combined[p] ?? new Float32Array(v.length);
        for (let k = 0; k < v.length; k++) acc[k] = acc[k]! + v[k]!;
        combined[p] = acc;
      }
    }
    out.push(combined);
    if ((i + 1) % 250 === 0) log(`${config.id} ${label}: ${i + 1}/${items.length} (${computed} computed, ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  return out;
}

interface Row {
  config: string;
  pooling: Pooling | 'hist';
  whiten: Whiten;
  dim: number;
  r1: number;
  r10: number;
  perTransform: Map<QueryTransform, number>;
  p10: number;
  perClass: Map<number, number>;
}

function nearDupMetrics(set: NearDupSet, gallery: Float32Array[], queries: Float32Array[]) {
  const photoItems = new Map<number, Set<number>>();
  set.galleryPhoto.forEach((p, i) => photoItems.set(p, (photoItems.get(p) ?? new Set()).add(i)));
  let r1 = 0;
  let r10 = 0;
  const perTransform = new Map<QueryTransform, number>();
  set.queries.forEach((q, qi) => {
    const target = set.originals[q.photo]!;
    const rank = rankOf(queries[qi]!, gallery, target, photoItems.get(q.photo));
    if (rank === 0) {
      r1++;
      perTransform.set(q.transform, (perTransform.get(q.transform) ?? 0) + 1);
    }
    if (rank < 10) r10++;
  });
  const perPhoto = set.queries.length / QUERY_TRANSFORMS.length;
  for (const t of QUERY_TRANSFORMS) perTransform.set(t, (perTransform.get(t) ?? 0) / perPhoto);
  return { r1: r1 / set.queries.length, r10: r10 / set.queries.length, perTransform };
}

const final = (v: Float32Array, w: Whitening | null) => (w ? applyWhitening(w, v) : l2normalise(Float32Array.from(v)));

export default async function run(): Promise<void> {
  const fit = process.argv.includes('--fit');
  const started = Date.now();
  const nd = await buildNearDup();
  const held = await buildHeldOut();
  const fashion = buildFashion();
  const missing = new Map([...nd.missing, ...held.missing, ...(isMissing(fashion) ? [fashion] : [])].map((m) => [m.pkg, m]));
  for (const m of missing.values()) console.log(`> Skipped data from Debian package \`${m.pkg}\`: ${m.reason}\n`);
  if (!nd.set.originals.length) {
    console.log('No test photos available: near-duplicate evaluation skipped.\n');
    return;
  }
  log(`${nd.set.originals.length} test photos, ${nd.set.gallery.length} gallery images, ${nd.set.queries.length} queries, ${held.items.length} held-out training views`);

  const rows: Row[] = [];
  let keptHeldOut: number[] | null = null;
  const bases = new Map<string, PcaBasis>();
  for (const config of CONFIGS) {
    const t0 = Date.now();
    const gallery = await describeAll(config, nd.set.gallery, 'gallery');
    const queries = await describeAll(config, nd.set.queries.map((q) => q.item), 'queries');
    const heldOut = config.backbone === 'hist' ? [] : await describeAll(config, held.items, 'held-out');
    const fash = isMissing(fashion) ? null : { g: await describeAll(config, fashion.gallery, 'fashion gallery'), q: await describeAll(config, fashion.queries, 'fashion queries') };
    log(`${config.id}: descriptors in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

    if (!keptHeldOut && config.backbone !== 'hist') {
      // Drop held-out pictures that show a test photo (the OpenCV manual reuses some sample images).
      const originals = nd.set.originals.map((i) => l2normalise(Float32Array.from(gallery[i]!.gap!)));
      const dropped = new Set<number>();
      for (const o of held.originals) {
        const v = l2normalise(Float32Array.from(heldOut[o]!.gap!));
        if (originals.some((t) => dot(t, v) > 0.9)) dropped.add(held.photoOf[o]!);
      }
      keptHeldOut = held.items.map((_, i) => i).filter((i) => !dropped.has(held.photoOf[i]!));
      log(`held-out: ${held.originals.length - dropped.size} pictures kept, ${dropped.size} dropped as near-duplicates of test photos`);
    }

    const poolings = config.backbone === 'hist' ? (['hist'] as const) : POOLINGS;
    for (const pooling of poolings) {
      const pick = (sets: DescriptorSet[]) => sets.map((s) => s[pooling]!);
      const whitenings: { id: Whiten; w: Whitening | null }[] = [{ id: 'raw', w: null }];
      if (pooling !== 'hist' && keptHeldOut?.length) {
        const key = `${config.id}/${pooling}`;
        const samples = keptHeldOut.map((i) => l2normalise(Float32Array.from(heldOut[i]![pooling]!)));
        const basis = bases.get(key) ?? cachedPcaBasis(samples, 256, () => pcaBasis(samples, 256));
        bases.set(key, basis);
        for (const spec of WHITENINGS) whitenings.push({ id: spec.id, w: whiteningFromBasis(basis, { dim: spec.dim, power: spec.power, shrink: SHRINK }) });
      }
      for (const { id, w } of whitenings) {
        const g = pick(gallery).map((v) => final(v, w));
        const q = pick(queries).map((v) => final(v, w));
        const m = nearDupMetrics(nd.set, g, q);
        const f = fash && !isMissing(fashion) ? precisionAtK(pick(fash.q).map((v) => final(v, w)), fashion.queryLabels, pick(fash.g).map((v) => final(v, w)), fashion.galleryLabels, 10) : null;
        rows.push({ config: config.id, pooling, whiten: id, dim: g[0]!.length, r1: m.r1, r10: m.r10, perTransform: m.perTransform, p10: f?.overall ?? NaN, perClass: f?.perLabel ?? new Map() });
      }
    }
    if (config !== CONFIGS[CONFIGS.length - 1]) {
      log(`partial results after ${config.id}:`);
      report(rows, nd.set, isMissing(fashion) ? null : fashion, started, (line) => process.stderr.write(`${line}\n`));
    }
  }
  report(rows, nd.set, isMissing(fashion) ? null : fashion, started, (line) => console.log(line));
  if ((fit || process.env.IRIS_EVAL_LAYERS !== '0') && keptHeldOut) await layerReport(nd.set, held.items.filter((_, i) => keptHeldOut!.includes(i)), isMissing(fashion) ? null : fashion, fit);
  if (process.env.IRIS_EVAL_SCENARIOS !== '0') await scenarioReport(nd.set, isMissing(fashion) ? null : fashion);
}

/** Layer combinations: `+` joins the L2-normalised GeM descriptors of several blocks (×weight), then L2. */
const LAYER_COMBOS: { id: string; parts: [MidLayer, number][] }[] = [
  { id: 'conv1', parts: [['conv1', 1]] },
  { id: 'conv1 + b12', parts: [['conv1', 1], ['b12', 1]] },
  { id: 'conv1 + b14', parts: [['conv1', 1], ['b14', 1]] },
  { id: 'conv1 + e13', parts: [['conv1', 1], ['e13', 1]] },
  { id: 'conv1 + e16', parts: [['conv1', 1], ['e16', 1]] },
  { id: 'conv1 + b12 + b14', parts: [['conv1', 1], ['b12', 1], ['b14', 1]] },
  { id: 'conv1 + 0.5 b14', parts: [['conv1', 1], ['b14', 0.5]] },
  { id: 'conv1 + 0.5 e16', parts: [['conv1', 1], ['e16', 0.5]] },
];

/** The production view (asp224) with GeM on several blocks of the backbone, PCA-whitened to 256 on the held-out pictures. */
async function layerReport(set: NearDupSet, heldOut: EvalItem[], fashion: FashionSet | null, fit: boolean): Promise<void> {
  const view: ViewSpec = ASP224;
  const describe = async (items: EvalItem[], label: string) => {
    const out: Record<MidLayer, Float32Array>[] = [];
    for (const [i, it] of items.entries()) {
      out.push(await layerDescriptors(it, view));
      if ((i + 1) % 250 === 0) log(`layers ${label}: ${i + 1}/${items.length}`);
    }
    return out;
  };
  const gallery = await describe(set.gallery, 'gallery');
  const queries = await describe(set.queries.map((q) => q.item), 'queries');
  const held = await describe(heldOut, 'held-out');
  const fash = fashion ? { g: await describe(fashion.gallery, 'fashion gallery'), q: await describe(fashion.queries, 'fashion queries') } : null;
  const rows: (string | number)[][] = [];
  for (const combo of LAYER_COMBOS) {
    const join = (d: Record<MidLayer, Float32Array>) => joinLayers(d, combo.parts);
    const samples = held.map(join);
    const w = whiteningFromBasis(cachedPcaBasis(samples, 256, () => pcaBasis(samples, 256)), { dim: 256, power: 0.5, shrink: SHRINK });
    if (fit && combo.id === EMBEDDING_PIPELINE.evalLayers) {
      // The shipped whitening of the production pipeline (view asp224, these blocks).
      const { dim, power, shrink } = EMBEDDING_PIPELINE.whitening;
      const shipped = whiteningFromBasis(pcaBasis(samples, dim), { dim, power, shrink });
      const file = fileURLToPath(new URL(`../src/vision/embedding/${EMBEDDING_PIPELINE.whitening.file}`, import.meta.url));
      writeFileSync(file, encodeWhitening(shipped, { describes: `${EMBEDDING_PIPELINE.evalConfig} ${combo.id} ${EMBEDDING_PIPELINE.pooling}`, power, shrink, samples: samples.length }));
      log(`wrote ${file} (${samples.length} held-out samples)`);
    }
    const v = (ds: Record<MidLayer, Float32Array>[]) => ds.map((d) => applyWhitening(w, join(d)));
    const m = nearDupMetrics(set, v(gallery), v(queries));
    const f = fash && fashion ? precisionAtK(v(fash.q), fashion.queryLabels, v(fash.g), fashion.galleryLabels, 10) : null;
    rows.push([combo.id + (combo.id === EMBEDDING_PIPELINE.evalLayers ? ' (production)' : ''), samples[0]!.length, m.r1, m.r10, f?.overall ?? '—']);
    log(`layers ${combo.id}: R@1 ${m.r1.toFixed(3)} P@10 ${f?.overall.toFixed(3)}`);
  }
  console.log(`Backbone blocks joined (asp224 view, GeM per block, PCA-whitened to 256 on ${held.length} held-out views):\n`);
  printTable(['blocks', 'input dim', 'near-dup R@1', 'near-dup R@10', 'Fashion-MNIST P@10'], rows);
}

/** The shipped pipeline (pooling + whitening file) under each scenario's views. */
async function scenarioReport(set: NearDupSet, fashion: FashionSet | null): Promise<void> {
  const file = fileURLToPath(new URL(`../src/vision/embedding/${EMBEDDING_PIPELINE.whitening.file}`, import.meta.url));
  if (!existsSync(file)) {
    console.log(`Scenario table skipped: ${file} does not exist yet (npm run eval -- embedding --fit).`);
    return;
  }
  const { whitening } = decodeWhitening(readFileSync(file));
  const groups = new Map<ScenarioConfig, string[]>();
  for (const [name, config] of Object.entries(SCENARIO_CONFIGS)) groups.set(config, [...(groups.get(config) ?? []), name]);
  const rows: (string | number)[][] = [];
  for (const [scenario, names] of groups) {
    const vectors = async (items: EvalItem[], label: string) => {
      const out: Float32Array[] = [];
      for (const [i, item] of items.entries()) {
        const sum = new Float32Array(whitening.inputDim);
        for (const view of scenario.views) {
          const v = await productionDescriptor(item, view);
          for (let k = 0; k < v.length; k++) sum[k] = sum[k]! + v[k]!;
        }
        out.push(applyWhitening(whitening, l2normalise(sum)));
        if ((i + 1) % 250 === 0) log(`scenario ${names[0]} ${label}: ${i + 1}/${items.length}`);
      }
      return out;
    };
    const m = nearDupMetrics(set, await vectors(set.gallery, 'gallery'), await vectors(set.queries.map((q) => q.item), 'queries'));
    const f = fashion ? precisionAtK(await vectors(fashion.queries, 'fashion queries'), fashion.queryLabels, await vectors(fashion.gallery, 'fashion gallery'), fashion.galleryLabels, 10) : null;
    rows.push([names.join(', '), scenario.summary, scenario.views.length, m.r1, m.r10, f?.overall ?? '—']);
  }
  console.log(`Scenarios (shipped file ${EMBEDDING_PIPELINE.whitening.file}, blocks ${EMBEDDING_PIPELINE.evalLayers}, pooling ${EMBEDDING_PIPELINE.pooling}):\n`);
  printTable(['scenarios', 'views', 'forward passes', 'near-dup R@1', 'near-dup R@10', 'Fashion-MNIST P@10'], rows);
}

function report(rows: Row[], set: NearDupSet, fashion: FashionSet | null, started: number, out: (text: string) => void): void {
  // printTable writes with console.log: collect its lines so partial reports can go to stderr.
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => lines.push(args.join(' '));
  try {
    printReport(rows, set, fashion, started);
  } finally {
    console.log = log;
  }
  out(lines.join('\n'));
}

function printReport(rows: Row[], set: NearDupSet, fashion: FashionSet | null, started: number): void {
  const eligible = rows.filter((r) => r.dim <= 256);
  const score = (r: Row) => r.r1 + (Number.isNaN(r.p10) ? 0 : r.p10);
  const winner = eligible.reduce((best, r) => (score(r) > score(best) ? r : best), eligible[0]!);
  const baseline = rows.find((r) => r.pooling === 'hist')!;
  console.log(
    `Near-duplicate: ${set.originals.length} photos, gallery of ${set.gallery.length} (photos + 3 crops of each), ` +
      `${set.queries.length} queries (${QUERY_TRANSFORMS.length} edits per photo). Fashion-MNIST: ` +
      (fashion ? `${fashion.queries.length} queries vs a gallery of ${fashion.gallery.length} (test split, class-balanced).` : 'skipped.') +
      ` Whitening shrink ${SHRINK}. Winner (★): best recall@1 + precision@10 with at most 256 dimensions.\n`,
  );
  printTable(
    ['candidate', 'pooling', 'whitening', 'dim', 'near-dup R@1', 'near-dup R@10', 'Fashion-MNIST P@10', ''],
    rows.map((r) => [r.config, r.pooling, r.whiten, r.dim, r.r1, r.r10, Number.isNaN(r.p10) ? '—' : r.p10, r === winner ? '★' : '']),
  );
  const pipeline = rows.find((r) => r.config === EMBEDDING_PIPELINE.evalConfig && r.pooling === EMBEDDING_PIPELINE.pooling && r.whiten === EMBEDDING_PIPELINE.evalWhitening);
  const shown = [...new Set([baseline, winner, ...(pipeline ? [pipeline] : [])])];
  const name = (r: Row) => `${r.config} ${r.pooling} ${r.whiten}${r === pipeline ? ' (production)' : ''}`;
  console.log('Near-duplicate recall@1 per edit:\n');
  printTable(['edit', ...shown.map(name)], QUERY_TRANSFORMS.map((t) => [t, ...shown.map((r) => r.perTransform.get(t) ?? NaN)]));
  if (fashion) {
    console.log('Fashion-MNIST precision@10 per class:\n');
    printTable(['class', ...shown.map(name)], FASHION_MNIST_CLASSES.map((c, i) => [c, ...shown.map((r) => r.perClass.get(i) ?? NaN)]));
  }
  console.log(`Evaluation wall time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
}
