/**
 * `npm run eval -- tagging`: does general tagging (_0000159) name the subject of a photo among its first five
 * tags, and what does an object tag's score mean? On photos no other evaluation uses (the wallpapers of
 * region-edits' photo set and the collage fillers), labelled by hand: the subject's COCO class when the default
 * pack has one, the other COCO classes clearly visible, and the photos whose subject the pack cannot name.
 *
 * (a) Subject among the top 5: tags ranked by score alone (before) and with the things in the picture first
 *     (tagging.handler.ts, after), from the same evidence.
 * (b) Object tags' scores against the labels: precision per score band (a tag is right when its class is
 *     clearly in the photo).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import os from 'node:os';
import sharp from 'sharp';
import { LIMITS } from '@iris/shared';
import { printTable } from '../../scripts/table.js';
import type { AnalysisContext } from '../src/domains/analysis/analysis-registry.js';
import { sharedImage } from '../src/domains/analysis/detect/vision-calls.js';
import { gatherEvidence } from '../src/domains/analysis/classify/scene-evidence.js';
import { rankTags, tagsFromEvidence, type Tag } from '../src/domains/analysis/classify/tagging.handler.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { loadCollageHosts, loadRegionPhotos } from './lib/debian-datasets.js';

interface Label {
  /** End of the photo id. */
  file: string;
  /** The subject's COCO class, or null when the pack has none for it (`cannot` says what it is). */
  subject: string | null;
  /** Other COCO classes clearly visible. */
  present?: string[];
  cannot?: string;
}

const LABELS: Label[] = [
  { file: 'Picture_0B_by_freespace.jpg', subject: 'bowl' },
  { file: 'free_by_Peter_Nerlich.jpg', subject: 'bird' },
  { file: 'friends_by_Aitzol_Berasategi.jpg', subject: 'dog' },
  { file: 'greentock_by_Peter_Nerlich.jpg', subject: 'clock' },
  { file: 'Kleiber_by_Lukas_Baubkus.jpg', subject: 'bird' },
  { file: 'ColorfulCups/contents/images/2560x1600.jpg', subject: 'cup' },
  { file: 'EveningGlow/contents/images/2560x1600.jpg', subject: 'boat' },
  { file: 'Kite/contents/images/2560x1600.jpg', subject: 'kite' },
  { file: 'Dragonfly_by_Bolly.jpg', subject: null, cannot: 'insect (dragonfly)' },
  { file: 'goldfish.png', subject: null, cannot: 'fish (drawn)' },
  { file: 'seeding_by_Clements_Engelhardt.jpg', subject: null, cannot: 'flower (dandelion)' },
  { file: 'calla.png', subject: null, cannot: 'flower (drawn)' },
  { file: 'Picture_1A_by_freespace.jpg', subject: null, cannot: 'paint brushes' },
  { file: 'FallenLeaf/contents/images/2560x1600.jpg', subject: null, cannot: 'leaf' },
];

const TOP = 5;

async function decode(file: string): Promise<RgbImage> {
  const { data, info } = await sharp(file).rotate().removeAlpha().resize({ width: 1024, height: 1024, fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** The order before: every tag by score alone. */
function byScore(tags: Tag[], count: number): string[] {
  const best = new Map<string, number>();
  for (const t of tags) if (t.score >= 0.25) best.set(t.key, Math.max(best.get(t.key) ?? 0, t.score));
  return [...best].sort((a, b) => b[1] - a[1]).slice(0, count).map(([k]) => k);
}

export default async function evaluate(): Promise<void> {
  const files = [...loadRegionPhotos().photos, ...loadCollageHosts().photos];
  const photos = LABELS.flatMap((label) => {
    const file = files.find((f) => f.id.endsWith(`/${label.file}`));
    return file ? [{ label, path: file.path }] : [];
  });
  if (!photos.length) {
    console.log('No labelled photos available (Debian packages missing): tagging evaluation skipped.');
    return;
  }
  const pool = new InferencePool(Math.max(1, os.availableParallelism()));
  const ctx: AnalysisContext = { pool };
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const rows: (string | number)[][] = [];
    let known = 0;
    let before = 0;
    let after = 0;
    const objectTags: { score: number; right: boolean }[] = [];
    for (const { label, path } of photos) {
      const evidence = await gatherEvidence(ctx, sharedImage(await decode(path)), { text: 'always', faces: true, nsfw: true });
      const tags = tagsFromEvidence(evidence);
      const old = byScore(tags, TOP);
      const now = rankTags(tags, LIMITS.countDefault, 'en');
      const nowKeys = now.slice(0, TOP).map((t) => t.puid.replace('.', ':'));
      const right = new Set([label.subject, ...(label.present ?? [])].filter(Boolean).map((c) => `coco:${c}`));
      for (const t of now) if (t.puid.startsWith('coco.')) objectTags.push({ score: t.score, right: right.has(t.puid.replace('.', ':')) });
      if (label.subject) {
        known++;
        if (old.includes(`coco:${label.subject}`)) before++;
        if (nowKeys.includes(`coco:${label.subject}`)) after++;
      }
      rows.push([label.file.split('/')[0]!, label.subject ?? `– (${label.cannot})`, old.join(', '), now.slice(0, TOP).map((t) => `${t.category} ${t.score.toFixed(2)}`).join(', ')]);
    }
    console.log(`${photos.length} labelled photos, ${known} whose subject the default pack can name.\n`);
    printTable(['photo', 'subject', `top ${TOP} by score (before)`, `top ${TOP}, things first (after)`], rows);
    printTable(
      ['subject among the top 5', 'photos', 'share'],
      [
        ['by score alone (before)', `${before}/${known}`, before / Math.max(1, known)],
        ['things first (after)', `${after}/${known}`, after / Math.max(1, known)],
      ],
    );
    const bands: [number, number][] = [
      [0.25, 0.5],
      [0.5, 0.75],
      [0.75, 1.01],
    ];
    printTable(
      ['object tag score', 'tags', 'right', 'precision'],
      bands.map(([lo, hi]) => {
        const inBand = objectTags.filter((t) => t.score >= lo && t.score < hi);
        const ok = inBand.filter((t) => t.right).length;
        return [`${lo}–${Math.min(1, hi)}`, inBand.length, ok, inBand.length ? ok / inBand.length : '–'];
      }),
    );
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
