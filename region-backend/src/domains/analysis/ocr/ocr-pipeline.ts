/**
 * Reads the text of an image through the inference pool: one detection task, then recognition of the
 * detected strips spread over the pool's threads (an idle backend answers one document about twice as
 * fast on two cores; a busy one pays only a few extra messages).
 */
import type { RgbImage } from '../../../images/rgb-image.js';
import type { InferencePool, Priority } from '../../../inference/inference-pool.js';
import type { OcrRecognised } from '../../../inference/tasks/ocr-recognise.task.js';
import type { Quad } from '../../../vision/ocr/geometry.js';
import type { RecognisedBox } from '../../../vision/ocr/text-lines.js';

export interface ReadTextOptions {
  /** Check each strip for 180° rotation before reading it (default true). */
  checkDirection?: boolean;
  /** Boxes read with a lower mean character probability are dropped (PaddleOCR's `drop_score`). */
  dropScore?: number;
  priority?: Priority;
}

/** Strips per recognition task below which splitting work across threads is not worth a message. */
const MIN_STRIPS_PER_TASK = 3;

function toQuad(flat: number[]): Quad {
  const p = (i: number) => ({ x: flat[2 * i]!, y: flat[2 * i + 1]! });
  return [p(0), p(1), p(2), p(3)];
}

/** Every text box of the image with its recognised text, in pixel coordinates, in no particular order. */
export async function readText(pool: InferencePool, rgb: RgbImage, options: ReadTextOptions = {}): Promise<RecognisedBox[]> {
  const priority = options.priority ?? 'interactive';
  const detected = await pool.run('ocr-detect', { data: rgb.data, width: rgb.width, height: rgb.height }, { priority });
  const n = detected.strips.length;
  if (!n) return [];
  const chunks = Math.max(1, Math.min(pool.size, Math.floor(n / MIN_STRIPS_PER_TASK)));
  // Longest strips first into the least loaded chunk: recognition time grows with strip width.
  const groups: { ids: number[]; load: number }[] = Array.from({ length: chunks }, () => ({ ids: [], load: 0 }));
  const byWidth = detected.strips.map((_, i) => i).sort((a, b) => detected.strips[b]!.width - detected.strips[a]!.width);
  for (const i of byWidth) {
    const target = groups.reduce((min, g) => (g.load < min.load ? g : min));
    target.ids.push(i);
    target.load += Math.max(320, detected.strips[i]!.width);
  }
  const recognised: OcrRecognised[] = new Array(n);
  await Promise.all(
    groups.map(async ({ ids }) => {
      const strips = ids.map((i) => detected.strips[i]!);
      const out = await pool.run(
        'ocr-recognise',
        { strips, checkDirection: options.checkDirection ?? true },
        { priority, transfer: strips.map((s) => s.data.buffer as ArrayBuffer) },
      );
      out.forEach((r, k) => (recognised[ids[k]!] = r));
    }),
  );
  const dropScore = options.dropScore ?? 0.5;
  const boxes: RecognisedBox[] = [];
  detected.boxes.forEach((box, i) => {
    const r = recognised[i];
    if (!r || !r.text.trim() || r.score < dropScore) return;
    boxes.push({ quad: toQuad(box.quad), text: r.text, score: r.score, flipped: r.flipped });
  });
  return boxes;
}
