/**
 * Greedy CTC decoding of a recogniser's per-step class probabilities (PaddleOCR's `CTCLabelDecode`):
 * best class per step, repeats collapsed, blanks (class 0) dropped; the score is the mean probability
 * of the characters kept.
 */
import { readFileSync } from 'node:fs';

export interface Decoded {
  text: string;
  score: number;
  /** Time step at which each character of `text` was emitted (steps are a fixed stride of the input width). */
  steps: number[];
}

/**
 * The recogniser's classes: blank, the dictionary file's characters (one per line), then a space when
 * the model was trained with one (`useSpaceChar`).
 */
export function loadCharset(dictionaryFile: string, useSpaceChar: boolean): string[] {
  const lines = readFileSync(dictionaryFile, 'utf8').split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines[lines.length - 1] === '') lines.pop();
  return ['', ...lines, ...(useSpaceChar ? [' '] : [])];
}

/** Decodes `batch` sequences of `steps`×`classes` probabilities laid out contiguously. */
export function ctcGreedyDecode(probs: Float32Array, dims: number[], charset: string[]): Decoded[] {
  const [batch = 0, steps = 0, classes = 0] = dims;
  if (classes !== charset.length) throw new Error(`recogniser has ${classes} classes but the dictionary gives ${charset.length}`);
  const out: Decoded[] = [];
  for (let b = 0; b < batch; b++) {
    let text = '';
    const at: number[] = [];
    let sum = 0;
    let kept = 0;
    let previous = -1;
    for (let t = 0; t < steps; t++) {
      const base = (b * steps + t) * classes;
      let best = 0;
      let bestP = probs[base]!;
      for (let c = 1; c < classes; c++) {
        const p = probs[base + c]!;
        if (p > bestP) {
          bestP = p;
          best = c;
        }
      }
      if (best !== 0 && best !== previous) {
        text += charset[best]!;
        at.push(t);
        sum += bestP;
        kept++;
      }
      previous = best;
    }
    out.push({ text, score: kept ? sum / kept : 0, steps: at });
  }
  return out;
}
