/**
 * The two person models of the colour-outfit and fashion pipelines, each a named stage over a manifest:
 * - `person-pose`: multi-person pose (default MoveNet MultiPose Lightning) → boxes and 17 COCO keypoints;
 * - `person-segmentation`: person mask (default MediaPipe Selfie segmentation), run on the whole image or
 *   on one person's crop (a crop gives a much finer mask for people who are small in the picture).
 * Runs only inside inference tasks (worker threads).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { resolveManifest } from '../runtime/model-config.js';
import type { ModelManifest } from '../runtime/model-manifest.js';
import { loadManifestModel } from '../runtime/manifest-model.js';
import { cropRgb, limitSide, resizeRgb, toInputTensor } from '../runtime/pixels.js';
import type { Mask } from '../color/palette-extraction.js';

export const POSE_STAGE = 'person-pose';
export const SEGMENTATION_STAGE = 'person-segmentation';

export interface Keypoint {
  /** Normalised to the image (0..1). */
  x: number;
  y: number;
  score: number;
}

export interface PersonPose {
  /** `[x, y, w, h]`, normalised. */
  box: [number, number, number, number];
  score: number;
  /** COCO order: nose, eyes (l, r), ears (l, r), shoulders, elbows, wrists, hips, knees, ankles. */
  keypoints: Keypoint[];
}

export const KP = {
  nose: 0, leftEye: 1, rightEye: 2, leftEar: 3, rightEar: 4, leftShoulder: 5, rightShoulder: 6,
  leftElbow: 7, rightElbow: 8, leftWrist: 9, rightWrist: 10, leftHip: 11, rightHip: 12,
  leftKnee: 13, rightKnee: 14, leftAnkle: 15, rightAnkle: 16,
} as const;

interface PoseOutput {
  type: string;
  minScore?: number;
  multipleOf?: number;
}

/** Multi-person pose. Decoder `movenet-multipose`: output [1, N, 56] = 17 × (y, x, score), box (ymin, xmin, ymax, xmax), score. */
export async function detectPeople(image: RgbImage, manifest: ModelManifest = resolveManifest(POSE_STAGE)): Promise<PersonPose[]> {
  const output = manifest.output as PoseOutput;
  if (output.type !== 'movenet-multipose') throw new Error(`${POSE_STAGE}: unsupported output decoder ${output.type}`);
  const side = Math.max(...manifest.inputSize);
  const multiple = output.multipleOf ?? 32;
  const small = limitSide(image, side);
  // The model takes any size that is a multiple of 32: keep the aspect ratio and pad right/bottom.
  const width = Math.ceil(small.width / multiple) * multiple;
  const height = Math.ceil(small.height / multiple) * multiple;
  const padded = { data: new Uint8Array(width * height * 3), width, height };
  for (let y = 0; y < small.height; y++) {
    padded.data.set(small.data.subarray(y * small.width * 3, (y + 1) * small.width * 3), y * width * 3);
  }
  const model = await loadManifestModel(manifest);
  const [out] = await model.run(toInputTensor([padded], manifest));
  if (!out) return [];
  const sx = width / small.width;
  const sy = height / small.height;
  const stride = out.dims[out.dims.length - 1] ?? 56;
  const people: PersonPose[] = [];
  for (let p = 0; p * stride < out.data.length; p++) {
    const v = out.data.subarray(p * stride, (p + 1) * stride);
    const score = v[55]!;
    if (score < (output.minScore ?? 0.2)) continue;
    const keypoints: Keypoint[] = [];
    for (let k = 0; k < 17; k++) keypoints.push({ y: clamp01(v[k * 3]! * sy), x: clamp01(v[k * 3 + 1]! * sx), score: v[k * 3 + 2]! });
    const ymin = clamp01(v[51]! * sy);
    const xmin = clamp01(v[52]! * sx);
    const ymax = clamp01(v[53]! * sy);
    const xmax = clamp01(v[54]! * sx);
    if (xmax <= xmin || ymax <= ymin) continue;
    people.push({ box: [xmin, ymin, xmax - xmin, ymax - ymin], score, keypoints });
  }
  return people.sort((a, b) => b.score - a.score);
}

interface MaskOutput {
  type: string;
  /** `sigmoid`: values are logits; `softmax`: channels are logits, `channel` is the person; `none`: probabilities. */
  activation?: 'none' | 'sigmoid' | 'softmax';
  channel?: number;
}

/** Person probability (0–255) at the model's output resolution, for the whole of `image`. */
export async function segmentPeople(image: RgbImage, manifest: ModelManifest = resolveManifest(SEGMENTATION_STAGE)): Promise<Mask> {
  const output = manifest.output as MaskOutput;
  if (output.type !== 'mask') throw new Error(`${SEGMENTATION_STAGE}: unsupported output decoder ${output.type}`);
  const [w, h] = manifest.inputSize;
  const model = await loadManifestModel(manifest);
  const [out] = await model.run(toInputTensor([resizeRgb(image, w, h)], manifest));
  if (!out) throw new Error(`${SEGMENTATION_STAGE}: no output`);
  const nhwc = manifest.layout === 'nhwc';
  const dims = out.dims;
  const channels = nhwc ? (dims.length === 4 ? dims[3]! : 1) : (dims.length === 4 ? dims[1]! : 1);
  const oh = nhwc ? dims[1]! : dims[dims.length - 2]!;
  const ow = nhwc ? dims[2]! : dims[dims.length - 1]!;
  const plane = oh * ow;
  const data = new Uint8Array(plane);
  const at = (p: number, c: number) => out.data[nhwc ? p * channels + c : c * plane + p]!;
  const channel = output.channel ?? channels - 1;
  for (let p = 0; p < plane; p++) {
    let prob: number;
    if (output.activation === 'softmax' && channels > 1) {
      let max = -Infinity;
      for (let c = 0; c < channels; c++) max = Math.max(max, at(p, c));
      let sum = 0;
      for (let c = 0; c < channels; c++) sum += Math.exp(at(p, c) - max);
      prob = Math.exp(at(p, channel) - max) / sum;
    } else if (output.activation === 'sigmoid') prob = 1 / (1 + Math.exp(-at(p, channel)));
    else prob = at(p, channel);
    data[p] = Math.round(255 * Math.max(0, Math.min(1, prob)));
  }
  return { data, width: ow, height: oh };
}

/**
 * Segments one person inside `box` (normalised, enlarged by the caller) and writes the result into `target`
 * (a mask over the whole image), keeping the maximum where people overlap.
 */
export async function segmentPersonInto(
  image: RgbImage,
  box: readonly [number, number, number, number],
  target: Mask,
  manifest: ModelManifest = resolveManifest(SEGMENTATION_STAGE),
): Promise<void> {
  const left = Math.floor(box[0] * image.width);
  const top = Math.floor(box[1] * image.height);
  const crop = cropRgb(image, left, top, box[2] * image.width, box[3] * image.height);
  const mask = await segmentPeople(crop, manifest);
  const tx0 = Math.floor((left / image.width) * target.width);
  const ty0 = Math.floor((top / image.height) * target.height);
  const tw = Math.max(1, Math.round((crop.width / image.width) * target.width));
  const th = Math.max(1, Math.round((crop.height / image.height) * target.height));
  for (let y = 0; y < th && ty0 + y < target.height; y++) {
    const my = Math.min(mask.height - 1, Math.floor(((y + 0.5) / th) * mask.height));
    for (let x = 0; x < tw && tx0 + x < target.width; x++) {
      const mx = Math.min(mask.width - 1, Math.floor(((x + 0.5) / tw) * mask.width));
      const i = (ty0 + y) * target.width + tx0 + x;
      const v = mask.data[my * mask.width + mx]!;
      if (v > target.data[i]!) target.data[i] = v;
    }
  }
}

function clamp01(v: number): number {
  return Math.max(0, Math.min(1, v));
}
