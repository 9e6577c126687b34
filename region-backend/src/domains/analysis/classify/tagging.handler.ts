/**
 * General tagging (_0000159): one merged, de-duplicated list of tags from everything the default pack sees:
 * COCO objects found in the picture and in the picture framed by a margin (score: the detector's score
 * calibrated over both views on labelled photos, tag-calibration.ts: an object tag of 0.8 was right about 80 % of the
 * time there), scenes (scene rule scores), faces, text, dominant colours
 * (score: 0.2 + their share of the picture, at most 0.9), black-and-white / colourful pictures and illustrations.
 * Tags that name what is in the picture (objects, faces) come first, then the words that describe it (scenes,
 * text, colours, style), each group highest score first; at most `count` (default 20). A colour or a scene is
 * rarely what a picture shows: ranked by score alone they pushed the subject out of the first five.
 */
import { ApiError, labelText, LIMITS, TAGGING_LABELS, type Lang } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { sharedImage } from '../detect/vision-calls.js';
import { gatherEvidence, type Evidence } from './scene-evidence.js';
import { ramp, sceneScores } from './scene-rules.js';
import { calibratedScore, type Calibration, type EvidenceKind } from './tag-calibration.js';

/** Tags scoring below this are never answered (weak evidence is noise, not a tag). */
const MIN_TAG_SCORE = 0.25;
/**
 * Object tags' scores are calibrated probabilities: one right one time in five is still worth answering (it
 * put the subject among the first five on more photos, and few objects on photos the pack cannot name).
 */
const MIN_OBJECT_TAG_SCORE = 0.2;
const MAX_COUNT = 200;

export function parseCount(params: Record<string, string>): number {
  const raw = params.count?.trim();
  if (raw === undefined || raw === '') return LIMITS.countDefault;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new ApiError('badRequest', 'count must be a positive integer');
  return Math.min(Number(raw), MAX_COUNT);
}

export interface Tag {
  /** `coco:<id>`, `scene:<id>`, `color:<id>` or `tag:<id>` (keys of TAGGING_LABELS). */
  key: string;
  score: number;
}

export interface ObjectEvidence {
  key: string;
  /** The detector's best score for the class in each view that found it. */
  scores: Partial<Record<EvidenceKind, number>>;
}

/** The object tags' evidence: per class, the best detector score of each view. */
export function objectEvidence(e: Evidence): ObjectEvidence[] {
  const byKey = new Map<string, Partial<Record<EvidenceKind, number>>>();
  const add = (kind: EvidenceKind, objects: readonly { label: string; score: number }[]) => {
    for (const o of objects) {
      const scores = byKey.get(`coco:${o.label}`) ?? {};
      scores[kind] = Math.max(scores[kind] ?? 0, o.score);
      byKey.set(`coco:${o.label}`, scores);
    }
  };
  add('object', e.objects);
  add('object-framed', e.framedObjects ?? []);
  return [...byKey].map(([key, scores]) => ({ key, scores }));
}

/** Every tag the evidence supports, with its score (unsorted, may repeat a key). */
export function tagsFromEvidence(e: Evidence, calibration?: Calibration): Tag[] {
  const tags: Tag[] = objectEvidence(e).map((o) => ({ key: o.key, score: calibratedScore(o.scores, calibration) }));
  const scenes = sceneScores(e);
  const indoor = scenes.find((x) => x.id === 'indoor')?.score ?? 0;
  // Only the likelier of indoor/outdoor, and only when the evidence leans clearly (0.5 means no evidence).
  const weaker = indoor >= 0.5 ? 'outdoor' : 'indoor';
  for (const s of scenes) {
    if (s.id === weaker || ((s.id === 'indoor' || s.id === 'outdoor') && s.score < 0.6)) continue;
    tags.push({ key: `scene:${s.id}`, score: s.score });
  }
  for (const f of e.faces ?? []) tags.push({ key: 'tag:face', score: f.score });
  if (e.text) tags.push({ key: 'tag:text', score: ramp(e.text.boxes, 1, 4) * ramp(e.text.area, 0, 0.02) });
  const s = e.stats;
  for (const c of s.colors.slice(0, 3)) if (c.share >= 0.15) tags.push({ key: `color:${c.id}`, score: Math.min(0.9, 0.2 + c.share) });
  tags.push({ key: 'tag:black_and_white', score: 1 - ramp(s.colourfulness, 4, 12) });
  tags.push({ key: 'tag:colorful', score: ramp(s.colourfulness, 60, 110) });
  const drawing = e.nsfw?.find((c) => c.id === 'drawing')?.score ?? 0;
  // nsfwjs also calls some busy photos "drawing" (0.85 on a football photo): only near-certain answers count.
  if (drawing >= 0.9) tags.push({ key: 'tag:illustration', score: drawing });
  return tags;
}

/** Tags naming a thing in the picture: ranked before the words that describe the picture. */
export const namesSubject = (key: string) => key.startsWith('coco:') || key === 'tag:face';

/** Best score per tag, de-duplicated by key and by the text answered, subjects first, highest first, at most `count`. */
export function rankTags(tags: readonly Tag[], count: number, lang: Lang): { category: string; puid: string; score: number }[] {
  const best = new Map<string, number>();
  const floor = (key: string) => (key.startsWith('coco:') ? MIN_OBJECT_TAG_SCORE : MIN_TAG_SCORE);
  for (const t of tags) if (t.score >= floor(t.key) && TAGGING_LABELS.has(t.key)) best.set(t.key, Math.max(best.get(t.key) ?? 0, t.score));
  const seenText = new Set<string>();
  const out: { category: string; puid: string; score: number }[] = [];
  const tier = (key: string) => (namesSubject(key) ? 0 : 1);
  for (const [key, score] of [...best].sort((a, b) => tier(a[0]) - tier(b[0]) || b[1] - a[1])) {
    const label = TAGGING_LABELS.get(key)!;
    const text = labelText(label, lang);
    if (seenText.has(text.toLowerCase())) continue;
    seenText.add(text.toLowerCase());
    out.push({ category: text, puid: label.puid, score: Math.round(Math.min(0.99, score) * 1e4) / 1e4 });
    if (out.length >= count) break;
  }
  return out;
}

export const taggingHandler: AnalysisHandler<'tagging'> = {
  serviceId: '_0000159',
  envelope: 'tagging',
  validate(params) {
    parseCount(params);
  },
  async run(ctx, input) {
    const count = parseCount(input.params);
    const evidence = await gatherEvidence(ctx, sharedImage(input.rgb), { text: 'always', faces: true, nsfw: true, framed: true });
    return { results: rankTags(tagsFromEvidence(evidence), count, input.lang) };
  },
};
