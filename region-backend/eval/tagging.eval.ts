/**
 * `npm run eval -- tagging`: does general tagging (_0000159) name the subject of a photo among its first five
 * tags, and what does an object tag's score mean? On hand-labelled photos (lib/tagging-labels.ts): wallpapers
 * with the subject in a scene, and Tux Paint's photographed stamps (one object cut out on white), which no
 * other evaluation reads.
 *
 * (a) Subject among the top 5, per subject kind: before (the detector on the picture, scores ramped, ranked by
 *     score alone and with things first) and after (the detector also on the picture framed by a margin,
 *     scores calibrated, things first).
 * (b) Calibration: Platt scaling over the two views' detector scores (tag-calibration.ts). Each photo's tags
 *     are scored with the fit on all the other photos (leave one photo out), so the reliability table is held
 *     out. With IRIS_TAGGING_WRITE_CALIBRATION=1 the fit on all photos is written to tag-calibration.table.ts.
 * (c) Cost: the detector on the picture and on the framed picture, and the whole evidence without and with
 *     the framed view (median ms on this machine, with its load average).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { LIMITS } from '@iris/shared';
import { printTable } from '../../scripts/table.js';
import type { AnalysisContext } from '../src/domains/analysis/analysis-registry.js';
import { detect, OBJECT_STAGE, sharedImage } from '../src/domains/analysis/detect/vision-calls.js';
import { FRAME_MARGIN, gatherEvidence, SCENE_OBJECTS_STAGE, type Evidence } from '../src/domains/analysis/classify/scene-evidence.js';
import { objectConfidence } from '../src/domains/analysis/classify/scene-rules.js';
import { calibratedScore, fitPlatt, type Calibration, type ViewScores } from '../src/domains/analysis/classify/tag-calibration.js';
import { objectEvidence, rankTags, tagsFromEvidence, type Tag } from '../src/domains/analysis/classify/tagging.handler.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { loadCollageHosts, loadRegionPhotos, loadTaggingStamps } from './lib/debian-datasets.js';
import { TAGGING_LABELS, type SubjectKind, type TaggingLabel } from './lib/tagging-labels.js';

const TOP = 5;
const TABLE_FILE = path.resolve(import.meta.dirname, '../src/domains/analysis/classify/tag-calibration.table.ts');

async function decode(file: string): Promise<RgbImage> {
  // As the service decodes: upright, transparency flattened on white.
  const { data, info } = await sharp(file)
    .rotate()
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .resize({ width: 1024, height: 1024, fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharedImage({ data: new Uint8Array(data), width: info.width, height: info.height });
}

/** The order before: every tag by score alone. */
function byScore(tags: Tag[], count: number): string[] {
  const best = new Map<string, number>();
  for (const t of tags) if (t.score >= 0.25) best.set(t.key, Math.max(best.get(t.key) ?? 0, t.score));
  return [...best].sort((a, b) => b[1] - a[1]).slice(0, count).map(([k]) => k);
}

/** The tags before: objects of the plain view only, their detector score ramped 0.2 → 0.6, answered from 0.25. */
function tagsBefore(e: Evidence): Tag[] {
  const rest = tagsFromEvidence(e).filter((t) => !t.key.startsWith('coco:'));
  const objects = e.objects.map((o) => ({ key: `coco:${o.label}`, score: objectConfidence(o.score) })).filter((t) => t.score >= 0.25);
  return [...objects, ...rest];
}

interface Measured {
  label: TaggingLabel;
  right: Set<string>;
  /** Per class, the best detector score of each view. */
  samples: { key: string; scores: ViewScores }[];
  before: Evidence;
  after: Evidence;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function fit(photos: Measured[]): Calibration {
  return fitPlatt(photos.flatMap((m) => m.samples.map((s) => ({ scores: s.scores, right: m.right.has(s.key) }))));
}

export default async function evaluate(): Promise<void> {
  const stamps = loadTaggingStamps(TAGGING_LABELS.filter((l) => l.source === 'on-white').map((l) => l.file));
  const files = [...loadRegionPhotos().photos, ...loadCollageHosts().photos, ...stamps.photos];
  const photos = TAGGING_LABELS.flatMap((label) => {
    const file = files.find((f) => f.id.endsWith(`/${label.file}`));
    return file ? [{ label, path: file.path }] : [];
  });
  if (stamps.missing.length) console.log(`Missing: ${stamps.missing.map((m) => `${m.pkg} (${m.reason})`).join('; ')}`);
  if (!photos.length) {
    console.log('No labelled photos available (Debian packages missing): tagging evaluation skipped.');
    return;
  }
  const pool = new InferencePool(Math.max(1, os.availableParallelism()));
  const ctx: AnalysisContext = { pool };
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const measured: Measured[] = [];
    const cost = { plain: [] as number[], framed: [] as number[], before: [] as number[], after: [] as number[] };
    const want = { text: 'always', faces: true, nsfw: true } as const;
    for (const { label, path: file } of photos) {
      const image = await decode(file);
      let t = performance.now();
      const before = await gatherEvidence(ctx, image, want);
      cost.before.push(performance.now() - t);
      t = performance.now();
      const after = await gatherEvidence(ctx, image, { ...want, framed: true });
      cost.after.push(performance.now() - t);
      for (const [margin, into] of [[0, cost.plain], [FRAME_MARGIN, cost.framed]] as const) {
        t = performance.now();
        await detect(ctx, { stage: SCENE_OBJECTS_STAGE, fallback: OBJECT_STAGE, image, minScore: 0.2, ...(margin ? { margin } : {}) });
        into.push(performance.now() - t);
      }
      const right = new Set([label.subject, ...(label.present ?? [])].filter((c): c is string => !!c).map((c) => `coco:${c}`));
      measured.push({ label, right, samples: objectEvidence(after), before, after });
    }
    // Leave one photo out: each photo's tags are scored with the fit on all the others.
    const heldOut = measured.map((m) => fit(measured.filter((o) => o !== m)));
    const all = fit(measured);

    // (a) The subject among the first five.
    const kinds = new Map<SubjectKind | 'all', { n: number; score: number; first: number; after: number }>();
    const rows: (string | number)[][] = [];
    const answered: { before: { score: number; right: boolean }[]; after: { score: number; right: boolean }[] } = { before: [], after: [] };
    const falseSubjects = { before: 0, after: 0 };
    for (const [i, m] of measured.entries()) {
      const old = tagsBefore(m.before);
      const scoreOrder = byScore(old, TOP);
      const firstOld = rankTags(old, LIMITS.countDefault, 'en');
      const now = rankTags(tagsFromEvidence(m.after, heldOut[i]), LIMITS.countDefault, 'en');
      const top = (r: typeof now) => r.slice(0, TOP).map((x) => x.puid.replace('.', ':'));
      for (const t of firstOld) if (t.puid.startsWith('coco.')) answered.before.push({ score: t.score, right: m.right.has(t.puid.replace('.', ':')) });
      for (const t of now) if (t.puid.startsWith('coco.')) answered.after.push({ score: t.score, right: m.right.has(t.puid.replace('.', ':')) });
      const { subject } = m.label;
      if (!subject) {
        falseSubjects.before += top(firstOld).filter((k) => k.startsWith('coco:')).length;
        falseSubjects.after += top(now).filter((k) => k.startsWith('coco:')).length;
      } else {
        const key = `coco:${subject}`;
        for (const kind of [m.label.kind, 'all'] as const) {
          const k = kinds.get(kind) ?? { n: 0, score: 0, first: 0, after: 0 };
          k.n++;
          if (scoreOrder.includes(key)) k.score++;
          if (top(firstOld).includes(key)) k.first++;
          if (top(now).includes(key)) k.after++;
          kinds.set(kind, k);
        }
      }
      rows.push([
        m.label.file.replace(/\/contents\/images\/.*$/, '').replace(/^.*\//, ''),
        subject ?? `– (${m.label.cannot})`,
        top(firstOld).join(', '),
        now.slice(0, TOP).map((x) => `${x.puid.replace(/^[a-z]+\./, '')} ${x.score.toFixed(2)}`).join(', '),
      ]);
    }
    const known = measured.filter((m) => m.label.subject).length;
    console.log(`${measured.length} labelled photos, ${known} whose subject the default pack can name (${measured.length - known} it cannot).\n`);
    printTable(['photo', 'subject', `top ${TOP} before (things first)`, `top ${TOP} after (held-out calibration)`], rows);
    printTable(
      ['subject kind', 'photos', 'before, by score', 'before, things first', 'after'],
      [...kinds].map(([kind, k]) => [kind, k.n, `${k.score} (${(k.score / k.n).toFixed(2)})`, `${k.first} (${(k.first / k.n).toFixed(2)})`, `${k.after} (${(k.after / k.n).toFixed(2)})`]),
    );
    printTable(
      ['photos the pack cannot name', 'object tags among their first 5'],
      [
        ['before', falseSubjects.before],
        ['after', falseSubjects.after],
      ],
    );

    // (b) Reliability of the object tags answered: held-out calibration against the ramp before.
    const bands: [number, number][] = [
      [0.2, 0.4],
      [0.4, 0.6],
      [0.6, 0.8],
      [0.8, 1.01],
    ];
    const reliability = (tags: { score: number; right: boolean }[]) =>
      bands.map(([lo, hi]) => {
        const inBand = tags.filter((t) => t.score >= lo && t.score < hi);
        const ok = inBand.filter((t) => t.right).length;
        const mean = inBand.reduce((s, t) => s + t.score, 0) / Math.max(1, inBand.length);
        return [`${lo}–${Math.min(1, hi)}`, inBand.length, inBand.length ? mean.toFixed(2) : '–', inBand.length ? (ok / inBand.length).toFixed(2) : '–'];
      });
    console.log('Object tags answered, before (detector score ramped 0.2 → 0.6):');
    printTable(['score', 'tags', 'mean score', 'share right'], reliability(answered.before));
    console.log('Object tags answered, after (calibrated, each photo scored with the fit on the other photos):');
    printTable(['score', 'tags', 'mean score', 'share right'], reliability(answered.after));
    const brier = (tags: { score: number; right: boolean }[]) => tags.reduce((s, t) => s + (t.score - (t.right ? 1 : 0)) ** 2, 0) / Math.max(1, tags.length);
    console.log(`Brier score of the object tags answered: before ${brier(answered.before).toFixed(3)}, after ${brier(answered.after).toFixed(3)} (lower is better).\n`);
    // Every class a view found on a photo, answered or not: the ramp before against the held-out calibration.
    const candidates = measured.flatMap((m, i) =>
      m.samples.map((c) => ({ right: m.right.has(c.key), before: objectConfidence(c.scores.object ?? 0), after: calibratedScore(c.scores, heldOut[i]) })),
    );
    console.log(
      `Brier score over all ${candidates.length} object candidates: before ${brier(candidates.map((c) => ({ score: c.before, right: c.right }))).toFixed(3)}, ` +
        `after ${brier(candidates.map((c) => ({ score: c.after, right: c.right }))).toFixed(3)}.\n`,
    );
    console.log('Calibration fitted on all photos: p = 1 / (1 + exp(-(bias + Σ weight · detector score of the view))):');
    printTable(['bias', ...Object.keys(all.weights).map((k) => `weight ${k}`)], [[all.bias, ...Object.values(all.weights)]]);

    // (c) Cost.
    printTable(
      ['cost per call (median ms)', 'ms'],
      [
        ['detector on the picture', median(cost.plain).toFixed(0)],
        [`detector on the framed picture (margin ${FRAME_MARGIN})`, median(cost.framed).toFixed(0)],
        ['tagging evidence before (objects, stats, text, faces, nsfw)', median(cost.before).toFixed(0)],
        ['tagging evidence after (+ framed view)', median(cost.after).toFixed(0)],
      ],
    );
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

    if (process.env.IRIS_TAGGING_WRITE_CALIBRATION === '1') {
      writeFileSync(
        TABLE_FILE,
        [
          `// Written by \`npm run eval -- tagging\` (IRIS_TAGGING_WRITE_CALIBRATION=1): Platt scaling fitted on ${measured.length} labelled photos.`,
          'export const TAG_CALIBRATION = {',
          `  bias: ${all.bias},`,
          `  weights: { ${Object.entries(all.weights).map(([k, w]) => `${k.includes('-') ? `'${k}'` : k}: ${w}`).join(', ')} },`,
          '};',
          '',
        ].join('\n'),
      );
      console.log(`Wrote ${path.relative(process.cwd(), TABLE_FILE)}.`);
    }
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
