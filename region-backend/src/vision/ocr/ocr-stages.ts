/**
 * The three model stages of text reading, run inside inference worker threads. Each stage loads the model
 * its manifest names (`models/ocr-det.json`, `ocr-cls.json`, `ocr-rec.json`, or an operator override), once
 * per thread.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import path from 'node:path';
import { z } from 'zod';
import type { ModelManifest } from '../runtime/model-manifest.js';
import { resolveManifest, resolveModelFile } from '../runtime/model-config.js';
import { loadManifestModel } from '../runtime/manifest-model.js';
import { resizeRgb, toInputTensor } from '../runtime/pixels.js';
import { boxesFromProbabilityMap, type DetectedBox } from './db-postprocess.js';
import { ctcGreedyDecode, loadCharset, type Decoded } from './ctc-decode.js';
import { recoverSpaces } from './space-recovery.js';

export const OCR_STAGES = { detect: 'ocr-det', direction: 'ocr-cls', recognise: 'ocr-rec' } as const;

const dbOptionsSchema = z.object({
  type: z.literal('db'),
  thresh: z.number().default(0.3),
  boxThresh: z.number().default(0.6),
  unclipRatio: z.number().default(1.5),
  maxCandidates: z.number().int().positive().default(1000),
  minSize: z.number().default(3),
  /** The input's sides are rounded to a multiple of this (the network's total stride). */
  multipleOf: z.number().int().positive().default(32),
});

const directionOptionsSchema = z.object({ type: z.literal('text-direction'), thresh: z.number().default(0.9) });

const ctcOptionsSchema = z.object({
  type: z.literal('ctc'),
  /** One character per line; `pkg:`, absolute, or relative to the model file's folder. */
  dictionary: z.string().min(1),
  useSpaceChar: z.boolean().default(true),
  maxWidth: z.number().int().positive().default(2400),
  /** Strips per model run. On the CPU one at a time is fastest: a batch is padded to its widest strip. */
  batchSize: z.number().int().positive().default(1),
  /**
   * Strips narrower than this are padded to it (PaddleOCR pads to the training width, `inputSize[0]`, when
   * omitted). Padding short strips costs time and did not help accuracy in the evaluation.
   */
  padTo: z.number().int().min(0).optional(),
  /** Re-insert spaces at wide ink gaps between Latin characters (see space-recovery.ts); 0 turns it off. */
  spaceGap: z.number().min(0).default(0.4),
});

function stage<T extends z.ZodTypeAny>(name: string, schema: T): { manifest: ModelManifest; options: z.infer<T> } {
  const manifest = resolveManifest(name);
  const parsed = schema.safeParse(manifest.output);
  if (!parsed.success) throw new Error(`model manifest of stage ${name}: output ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return { manifest, options: parsed.data };
}

/** Text boxes in the image's pixel coordinates. */
export async function detectTextBoxes(img: RgbImage): Promise<DetectedBox[]> {
  const { manifest, options } = stage(OCR_STAGES.detect, dbOptionsSchema);
  const limit = Math.max(...manifest.inputSize);
  const ratio = Math.min(1, limit / Math.max(img.width, img.height));
  const m = options.multipleOf;
  const width = Math.max(m, Math.round((img.width * ratio) / m) * m);
  const height = Math.max(m, Math.round((img.height * ratio) / m) * m);
  const model = await loadManifestModel(manifest);
  const [out] = await model.run(toInputTensor([resizeRgb(img, width, height)], manifest));
  if (!out) throw new Error(`${manifest.name}: no output`);
  const mapHeight = out.dims[out.dims.length - 2] ?? height;
  const mapWidth = out.dims[out.dims.length - 1] ?? width;
  return boxesFromProbabilityMap({ data: out.data, width: mapWidth, height: mapHeight }, img.width, img.height, options);
}

/**
 * Fills an NCHW batch from strips of the model's height, left-aligned; the rest stays 0, the normalised
 * value PaddleOCR pads with.
 */
function stripBatch(strips: RgbImage[], width: number, manifest: ModelManifest): Float32Array {
  const height = manifest.inputSize[1];
  const plane = width * height;
  const data = new Float32Array(strips.length * 3 * plane);
  const { scale, mean, std } = manifest.normalisation;
  const order = manifest.colorOrder === 'bgr' ? [2, 1, 0] : [0, 1, 2];
  strips.forEach((strip, n) => {
    const s = strip.height === height && strip.width <= width ? strip : resizeRgb(strip, Math.min(width, strip.width), height);
    for (let c = 0; c < 3; c++) {
      const src = order[c]!;
      const base = (n * 3 + c) * plane;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < s.width; x++) {
          data[base + y * width + x] = (s.data[(y * s.width + x) * 3 + src]! / scale - mean[c]!) / std[c]!;
        }
      }
    }
  });
  return data;
}

/** For each strip, whether the direction classifier is confident it is upside down. */
export async function upsideDown(strips: RgbImage[]): Promise<boolean[]> {
  if (!strips.length) return [];
  const { manifest, options } = stage(OCR_STAGES.direction, directionOptionsSchema);
  const [width, height] = manifest.inputSize;
  const fitted = strips.map((s) => resizeRgb(s, Math.max(1, Math.min(width, Math.ceil((s.width * height) / s.height))), height));
  const model = await loadManifestModel(manifest);
  const [out] = await model.run({ data: stripBatch(fitted, width, manifest), dims: [fitted.length, 3, height, width] });
  if (!out) throw new Error(`${manifest.name}: no output`);
  const classes = out.dims[1] ?? 2;
  // Class 1 is "180" in PaddleOCR's label list ['0', '180'].
  return strips.map((_, i) => out.data[i * classes + 1]! > options.thresh);
}

const charsets = new Map<string, string[]>();

/** Maximum strip width the recogniser accepts, for cutting strips before they cross threads. */
export function recogniserInput(): { height: number; maxWidth: number } {
  const { manifest, options } = stage(OCR_STAGES.recognise, ctcOptionsSchema);
  return { height: manifest.inputSize[1], maxWidth: options.maxWidth };
}

/** Recognised text of each strip (strips already at the recogniser's height). */
export async function recogniseStrips(strips: RgbImage[]): Promise<Decoded[]> {
  if (!strips.length) return [];
  const { manifest, options } = stage(OCR_STAGES.recognise, ctcOptionsSchema);
  const dictionary = resolveModelFile(options.dictionary, path.dirname(manifest.file));
  const key = `${dictionary}|${options.useSpaceChar}`;
  let charset = charsets.get(key);
  if (!charset) {
    charset = loadCharset(dictionary, options.useSpaceChar);
    charsets.set(key, charset);
  }
  const model = await loadManifestModel(manifest);
  const [trainedWidth, height] = manifest.inputSize;
  const minWidth = options.padTo ?? trainedWidth;
  // Similar widths share a batch (when batches are used) so little padding is computed.
  const order = strips.map((_, i) => i).sort((a, b) => strips[a]!.width / strips[a]!.height - strips[b]!.width / strips[b]!.height);
  const results: Decoded[] = new Array(strips.length);
  for (let start = 0; start < order.length; start += options.batchSize) {
    const ids = order.slice(start, start + options.batchSize);
    const batch = ids.map((i) => strips[i]!);
    const width = Math.max(minWidth, ...batch.map((s) => s.width));
    const [out] = await model.run({ data: stripBatch(batch, width, manifest), dims: [batch.length, 3, height, width] });
    if (!out) throw new Error(`${manifest.name}: no output`);
    const stride = width / (out.dims[1] ?? width);
    ctcGreedyDecode(out.data, out.dims, charset).forEach((d, k) => {
      const strip = batch[k]!;
      const text = options.spaceGap > 0 ? recoverSpaces(strip, d.text, d.steps, stride, { minGap: options.spaceGap }) : d.text;
      // Steps index the decoded characters, not the spaces added here.
      results[ids[k]!] = { text, score: d.score, steps: text === d.text ? d.steps : [] };
    });
  }
  return results;
}
