/**
 * Decoding of image classifiers: one output of N class scores, already probabilities (`probabilities`),
 * logits to normalise (`softmax`) or independent per-class logits (`sigmoid`). `categories` optionally merges
 * model classes into a service's categories by summing probabilities (e.g. nsfwjs porn + hentai → Porn).
 */
import { z } from 'zod';
import type { OutputTensor } from '../runtime/manifest-model.js';

export const classScoresOptions = z.object({
  type: z.enum(['probabilities', 'softmax', 'sigmoid']),
  /** Index of the scores among the model's outputs. */
  scoresOutput: z.number().int().min(0).default(0),
  categories: z.record(z.array(z.string())).optional(),
});
export type ClassScoresOptions = z.infer<typeof classScoresOptions>;

export interface ClassScore {
  id: string;
  score: number;
}

export function decodeClassScores(outputs: OutputTensor[], labelIds: readonly string[] | undefined, options: ClassScoresOptions): ClassScore[] {
  const out = outputs[options.scoresOutput];
  if (!out) throw new Error(`classifier decoder: no output ${options.scoresOutput}`);
  const raw = Array.from(out.data);
  let probs: number[];
  if (options.type === 'softmax') {
    const max = Math.max(...raw);
    const exps = raw.map((v) => Math.exp(v - max));
    const sum = exps.reduce((a, b) => a + b, 0);
    probs = exps.map((v) => v / sum);
  } else if (options.type === 'sigmoid') {
    probs = raw.map((v) => 1 / (1 + Math.exp(-v)));
  } else {
    probs = raw;
  }
  if (labelIds && labelIds.length !== probs.length) throw new Error(`classifier decoder: ${probs.length} scores but ${labelIds.length} labels`);
  return probs.map((score, i) => ({ id: labelIds?.[i] ?? `class_${i}`, score }));
}

/**
 * Merges class scores into categories: each category sums the classes listed for it; without a mapping,
 * a class whose id is a category id counts for that category. Unlisted classes count for nothing.
 */
export function mergeCategories(scores: readonly ClassScore[], categoryIds: readonly string[], mapping?: Record<string, string[]>): ClassScore[] {
  const byId = new Map(scores.map((s) => [s.id, s.score]));
  return categoryIds.map((id) => {
    const members = mapping?.[id] ?? [id];
    return { id, score: members.reduce((sum, m) => sum + (byId.get(m) ?? 0), 0) };
  });
}
