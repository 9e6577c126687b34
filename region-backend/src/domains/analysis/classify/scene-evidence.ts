/**
 * Gathers, in parallel on the inference pool, what the scene rules and general tagging look at: COCO objects,
 * picture statistics, and optionally text boxes (when the OCR text-detection task is installed), faces and the
 * nsfw classifier's class probabilities (its "drawing" class marks illustrations).
 */
import type { RgbImage } from '../../../images/rgb-image.js';
import type { AnalysisContext } from '../analysis-registry.js';
import { TASKS } from '../../../inference/task-registry.js';
import type { LabelledDetection } from '../../../inference/tasks/vision-detect.task.js';
import { classify, detect, FACE_STAGE, OBJECT_STAGE, PORN_STAGE, stats } from '../detect/vision-calls.js';
import type { ClassScore } from '../../../vision/classify/class-scores.decoder.js';
import type { ImageStats } from '../../../vision/classify/image-stats.js';
import type { SceneEvidence } from './scene-rules.js';

/** Stage of the objects scene and tagging rules look at (default: the COCO detector). */
export const SCENE_OBJECTS_STAGE = 'scene-objects';

export interface Evidence extends SceneEvidence {
  stats: ImageStats;
  /** COCO objects found in the picture framed by FRAME_MARGIN (tagging evidence only; the scene rules ignore it). */
  framedObjects?: LabelledDetection[];
  faces?: LabelledDetection[];
  nsfw?: ClassScore[];
}

const TEXT_TASK = 'ocr-detect';

/**
 * The framed view's border, a share of the picture's size on every side: the picture fills half the frame. On
 * the tagging photos it found the subject where the plain view missed it (objects cut out edge to edge,
 * close-ups); a quarter found fewer (docs/benchmarks.md, "Tagging").
 */
export const FRAME_MARGIN = 0.5;

function polygonArea(quad: number[]): number {
  let area = 0;
  for (let i = 0; i < quad.length; i += 2) {
    const j = (i + 2) % quad.length;
    area += quad[i]! * quad[j + 1]! - quad[j]! * quad[i + 1]!;
  }
  return Math.abs(area) / 2;
}

async function textEvidence(ctx: AnalysisContext, image: RgbImage): Promise<SceneEvidence['text']> {
  if (!TASKS[TEXT_TASK]) return undefined;
  const found = await ctx.pool.run(TEXT_TASK, { data: image.data, width: image.width, height: image.height });
  const area = found.boxes.reduce((sum, b) => sum + polygonArea(b.quad), 0) / (image.width * image.height);
  return { boxes: found.boxes.length, area: Math.min(1, area) };
}

/**
 * `text: 'document-like'` runs text detection only when the picture statistics allow a document (a light,
 * low-saturation background): the scene rules only use text for that, and most photos then skip it.
 */
export async function gatherEvidence(
  ctx: AnalysisContext,
  image: RgbImage,
  want: { text?: 'always' | 'document-like'; faces?: boolean; nsfw?: boolean; framed?: boolean } = {},
): Promise<Evidence> {
  const picture = stats(ctx, image);
  const objectsIn = (margin?: number) => detect(ctx, { stage: SCENE_OBJECTS_STAGE, fallback: OBJECT_STAGE, image, minScore: 0.2, ...(margin ? { margin } : {}) });
  const [objects, framedObjects, pictureStats, text, faces, nsfw] = await Promise.all([
    objectsIn(),
    want.framed ? objectsIn(FRAME_MARGIN) : undefined,
    picture,
    want.text === 'always'
      ? textEvidence(ctx, image)
      : want.text === 'document-like'
        ? picture.then((s) => (s.paper >= 0.2 && s.saturation < 0.3 ? textEvidence(ctx, image) : undefined))
        : undefined,
    want.faces ? detect(ctx, { stage: FACE_STAGE, image }) : undefined,
    want.nsfw ? classify(ctx, PORN_STAGE, image).then((r) => r.scores) : undefined,
  ]);
  return {
    objects,
    ...(framedObjects ? { framedObjects } : {}),
    stats: pictureStats,
    ...(text ? { text } : {}),
    ...(faces ? { faces } : {}),
    ...(nsfw ? { nsfw } : {}),
  };
}
