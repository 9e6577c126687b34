/**
 * Splits the people of a picture into what they wear and what they are: person masks (segmentation on each
 * person's crop), head and hair (from the face keypoints of the pose model), skin (the person's own tone
 * sampled in the face). `garment` is person − head − hair − skin, per person (`owner`).
 * All maps are at a working resolution (longer side 320 px).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { limitSide } from '../runtime/pixels.js';
import { deltaE76, rgbToLab, type Lab } from '../color/color-space.js';
import type { Mask } from '../color/palette-extraction.js';
import { isSkinLike, isSkinTone, TONE_DELTA_E } from '../color/skin-model.js';
import { detectPeople, KP, segmentPersonInto, type Keypoint, type PersonPose } from './person-models.js';

export const WORK_SIDE = 320;
const MIN_PERSON_SCORE = 0.25;
const MAX_PEOPLE = 4;
const KP_MIN = 0.3;

export interface Ellipse { cx: number; cy: number; rx: number; ry: number }

export interface ParsedPerson {
  index: number;
  pose: PersonPose;
  /** Head ellipse in working pixels (null when the face is not visible). */
  head: Ellipse | null;
  skinTone: Lab | null;
}

export interface ParsedPicture {
  work: RgbImage;
  people: ParsedPerson[];
  /** Person probability 0–255 (all people). */
  person: Mask;
  /** 255 where a person's clothing (or accessory) is. */
  garment: Mask;
  skin: Uint8Array;
  /** Which person (index in `people`) a working pixel belongs to; −1 for none. */
  owner: Int8Array;
}

/** `detected`: the pose model's people when the caller already ran it. */
export async function parsePeople(image: RgbImage, detected?: PersonPose[]): Promise<ParsedPicture> {
  const work = limitSide(image, WORK_SIDE);
  const { width: w, height: h } = work;
  const poses = (detected ?? (await detectPeople(image))).filter((p) => p.score >= MIN_PERSON_SCORE).slice(0, MAX_PEOPLE);
  const person: Mask = { data: new Uint8Array(w * h), width: w, height: h };
  const owner = new Int8Array(w * h).fill(-1);
  const people: ParsedPerson[] = [];
  for (const [index, pose] of poses.entries()) {
    const box = enlarge(pose.box, 0.12);
    const own: Mask = { data: new Uint8Array(w * h), width: w, height: h };
    await segmentPersonInto(image, box, own);
    for (let i = 0; i < w * h; i++) {
      if (own.data[i]! > person.data[i]!) {
        person.data[i] = own.data[i]!;
        if (own.data[i]! >= 128) owner[i] = index;
      }
    }
    people.push({ index, pose, head: headEllipse(pose, w, h), skinTone: null });
  }

  const lab = new Float32Array(w * h * 3);
  for (let i = 0; i < w * h; i++) lab.set(rgbToLab(work.data[i * 3]!, work.data[i * 3 + 1]!, work.data[i * 3 + 2]!), i * 3);
  const labAt = (i: number): Lab => [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];

  const removed = new Uint8Array(w * h);
  for (const p of people) {
    if (!p.head) continue;
    p.skinTone = faceTone(work, lab, p.head);
    removeHeadAndHair(p.head, p.index, owner, lab, removed, w, h);
  }

  const skin = new Uint8Array(w * h);
  let personPixels = 0;
  let genericSkin = 0;
  for (let i = 0; i < w * h; i++) {
    const o = owner[i]!;
    if (o < 0) continue;
    personPixels++;
    const tone = people[o]?.skinTone;
    if (tone) {
      // The person's tone, or a skin-like colour not far from it (arms and legs are lit differently from the face).
      const c = labAt(i);
      if (isSkinTone(c, tone) || (deltaE76(c, tone) < 2 * TONE_DELTA_E && isSkinLike(work.data[i * 3]!, work.data[i * 3 + 1]!, work.data[i * 3 + 2]!))) skin[i] = 1;
    } else if (isSkinLike(work.data[i * 3]!, work.data[i * 3 + 1]!, work.data[i * 3 + 2]!)) {
      skin[i] = 2;
      genericSkin++;
    }
  }
  // Without a face to learn the tone from, the generic rule would also delete beige clothes: only trust it
  // when it leaves most of the person.
  const trustGeneric = genericSkin < 0.5 * personPixels;

  const garment: Mask = { data: new Uint8Array(w * h), width: w, height: h };
  for (let i = 0; i < w * h; i++) {
    if (owner[i]! < 0 || removed[i]) continue;
    if (skin[i] === 1 || (skin[i] === 2 && trustGeneric)) continue;
    garment.data[i] = 255;
  }
  return { work, people, person, garment, skin, owner };
}

export function enlarge(box: readonly [number, number, number, number], by: number): [number, number, number, number] {
  const x0 = Math.max(0, box[0] - box[2] * by);
  const y0 = Math.max(0, box[1] - box[3] * by);
  const x1 = Math.min(1, box[0] + box[2] * (1 + by));
  const y1 = Math.min(1, box[1] + box[3] * (1 + by));
  return [x0, y0, x1 - x0, y1 - y0];
}

function kp(pose: PersonPose, index: number, w: number, h: number): { x: number; y: number } | null {
  const k: Keypoint | undefined = pose.keypoints[index];
  return k && k.score >= KP_MIN ? { x: k.x * w, y: k.y * h } : null;
}

/** Head ellipse from face keypoints; its size from the ears, eyes or shoulders, whichever are visible. */
export function headEllipse(pose: PersonPose, w: number, h: number): Ellipse | null {
  const face = [KP.nose, KP.leftEye, KP.rightEye, KP.leftEar, KP.rightEar].map((i) => kp(pose, i, w, h)).filter((p) => p !== null);
  if (face.length < 2) return null;
  const cx = face.reduce((s, p) => s + p.x, 0) / face.length;
  const cy = face.reduce((s, p) => s + p.y, 0) / face.length;
  const dist = (a: number, b: number) => {
    const p = kp(pose, a, w, h);
    const q = kp(pose, b, w, h);
    return p && q ? Math.hypot(p.x - q.x, p.y - q.y) : 0;
  };
  const rx = Math.max(0.65 * dist(KP.leftEar, KP.rightEar), 1.3 * dist(KP.leftEye, KP.rightEye), 0.3 * dist(KP.leftShoulder, KP.rightShoulder), 0.06 * pose.box[3] * h, 2);
  return { cx, cy: cy - 0.15 * rx, rx, ry: 1.3 * rx };
}

function inEllipse(x: number, y: number, e: Ellipse): boolean {
  const dx = (x - e.cx) / e.rx;
  const dy = (y - e.cy) / e.ry;
  return dx * dx + dy * dy <= 1;
}

function faceTone(work: RgbImage, lab: Float32Array, head: Ellipse): Lab | null {
  const inner: Ellipse = { cx: head.cx, cy: head.cy + 0.2 * head.ry, rx: 0.55 * head.rx, ry: 0.5 * head.ry };
  let n = 0;
  const sum = [0, 0, 0];
  for (let y = Math.max(0, Math.floor(inner.cy - inner.ry)); y <= Math.min(work.height - 1, inner.cy + inner.ry); y++) {
    for (let x = Math.max(0, Math.floor(inner.cx - inner.rx)); x <= Math.min(work.width - 1, inner.cx + inner.rx); x++) {
      if (!inEllipse(x, y, inner)) continue;
      const i = y * work.width + x;
      if (!isSkinLike(work.data[i * 3]!, work.data[i * 3 + 1]!, work.data[i * 3 + 2]!)) continue;
      for (let d = 0; d < 3; d++) sum[d]! += lab[i * 3 + d]!;
      n++;
    }
  }
  return n >= 6 ? [sum[0]! / n, sum[1]! / n, sum[2]! / n] : null;
}

/**
 * Head = the ellipse and a cap above it (hair on top). Long hair: pixels of the person below the head and
 * beside the face whose colour is close to the hair colour sampled at the top of the head.
 */
function removeHeadAndHair(head: Ellipse, index: number, owner: Int8Array, lab: Float32Array, removed: Uint8Array, w: number, h: number): void {
  const cap: Ellipse = { cx: head.cx, cy: head.cy - 0.45 * head.ry, rx: 1.15 * head.rx, ry: 1.0 * head.ry };
  const x0 = Math.max(0, Math.floor(head.cx - 1.8 * head.rx));
  const x1 = Math.min(w - 1, Math.ceil(head.cx + 1.8 * head.rx));
  const y0 = Math.max(0, Math.floor(cap.cy - cap.ry));
  const y1 = Math.min(h - 1, Math.ceil(head.cy + 1.8 * head.ry));
  const hairSum = [0, 0, 0];
  let hairN = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const i = y * w + x;
      if (owner[i] !== index) continue;
      if (inEllipse(x, y, head) || inEllipse(x, y, cap)) {
        removed[i] = 1;
        if (y < head.cy - 0.6 * head.ry && Math.abs(x - head.cx) < 0.6 * head.rx) {
          for (let d = 0; d < 3; d++) hairSum[d]! += lab[i * 3 + d]!;
          hairN++;
        }
      }
    }
  }
  if (hairN < 4) return;
  const hair: Lab = [hairSum[0]! / hairN, hairSum[1]! / hairN, hairSum[2]! / hairN];
  if (hair[0] > 60) return; // a light "hair" sample is more likely a hat or the background: leave the body alone
  for (let y = Math.max(0, Math.floor(head.cy)); y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const i = y * w + x;
      if (owner[i] !== index || removed[i]) continue;
      const d = Math.hypot(lab[i * 3]! - hair[0], lab[i * 3 + 1]! - hair[1], lab[i * 3 + 2]! - hair[2]);
      if (d < 10) removed[i] = 1;
    }
  }
}
