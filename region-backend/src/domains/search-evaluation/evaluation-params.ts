/**
 * The body of `POST .../evaluation`, made sense of: the sample size (1..max, default) and the edits (known
 * names only, each once, in the order given; default the standard seven). Anything else is refused with 400/5001.
 */
import { ApiError, DEFAULT_EVALUATION_EDITS, EVALUATION_EDITS, EVALUATION_SAMPLE, type EvaluationEdit, type StartEvaluationInput } from '@iris/shared';

export interface EvaluationParams {
  sampleSize: number;
  edits: EvaluationEdit[];
}

const KNOWN = new Set<string>(EVALUATION_EDITS);

export function parseEvaluationParams(input: StartEvaluationInput | undefined): EvaluationParams {
  const raw = input?.sample_size;
  let sampleSize: number = EVALUATION_SAMPLE.default;
  if (raw !== undefined && String(raw).trim() !== '') {
    const text = String(raw).trim();
    if (!/^\+?\d{1,9}$/.test(text)) throw new ApiError('invalidData', 'sample_size must be a positive integer');
    sampleSize = Number(text);
    if (sampleSize < 1 || sampleSize > EVALUATION_SAMPLE.max) throw new ApiError('invalidData', `sample_size must be between 1 and ${EVALUATION_SAMPLE.max}`);
  }
  const list = input?.edits === undefined ? [] : Array.isArray(input.edits) ? input.edits : input.edits.split(',');
  const names = list.map((e) => e.trim()).filter(Boolean);
  for (const name of names) {
    if (!KNOWN.has(name)) throw new ApiError('invalidData', `unknown edit ${JSON.stringify(name.slice(0, 64))}; known: ${EVALUATION_EDITS.join(', ')}`);
  }
  const edits = names.length ? ([...new Set(names)] as EvaluationEdit[]) : [...DEFAULT_EVALUATION_EDITS];
  return { sampleSize, edits };
}
