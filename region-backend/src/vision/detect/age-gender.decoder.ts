/**
 * Decoding of face-attribute networks: a gender output (one sigmoid = P(male), or two softmax scores
 * [male, female]) and an age output (a distribution over ages 0..N-1, or one regressed age in years).
 * Outputs are recognised by their last dimension, so models that return extra tensors (e.g. FaceRes'
 * 1024-d face vector) need no extra configuration.
 */
import { z } from 'zod';
import type { OutputTensor } from '../runtime/manifest-model.js';

export const ageGenderOptions = z.object({
  type: z.literal('age-gender'),
  genderOutputSize: z.union([z.literal(1), z.literal(2)]).default(1),
  ageOutputSize: z.number().int().positive().default(100),
  /** The face box is grown by this factor (square, around its centre) before cropping. */
  faceScale: z.number().positive().default(1.3),
  /** Also run each face mirrored and average both answers (steadier on small or turned faces). */
  mirror: z.boolean().default(false),
});
export type AgeGenderOptions = z.infer<typeof ageGenderOptions>;

export interface FaceAttributes {
  /** P(male). */
  male: number;
  /** Expected age in years. */
  age: number;
  /** P(age ≥ adultAge); from the distribution when the model gives one, else 0 or 1. */
  adult: number;
}

/** Attributes of the `index`-th face of a batch. */
export function decodeAgeGender(outputs: OutputTensor[], index: number, options: AgeGenderOptions, adultAge: number): FaceAttributes {
  const last = (t: OutputTensor) => t.dims[t.dims.length - 1];
  const gender = outputs.find((t) => last(t) === options.genderOutputSize);
  const age = outputs.find((t) => t !== gender && last(t) === options.ageOutputSize);
  if (!gender || !age) throw new Error(`age-gender decoder: outputs ${outputs.map((o) => `[${o.dims}]`).join(' ')} lack gender (${options.genderOutputSize}) or age (${options.ageOutputSize})`);
  const g = gender.data.subarray(index * options.genderOutputSize, (index + 1) * options.genderOutputSize);
  const male = options.genderOutputSize === 1 ? g[0]! : g[0]! / (g[0]! + g[1]! || 1);
  const a = age.data.subarray(index * options.ageOutputSize, (index + 1) * options.ageOutputSize);
  if (options.ageOutputSize === 1) return { male, age: a[0]!, adult: a[0]! >= adultAge ? 1 : 0 };
  let total = 0;
  let expected = 0;
  let adult = 0;
  a.forEach((p, years) => {
    total += p;
    expected += p * years;
    if (years >= adultAge) adult += p;
  });
  return { male, age: total > 0 ? expected / total : 0, adult: total > 0 ? adult / total : 0 };
}

/** Averages two readings of the same face (original and mirrored). */
export function averageAttributes(a: FaceAttributes, b: FaceAttributes): FaceAttributes {
  return { male: (a.male + b.male) / 2, age: (a.age + b.age) / 2, adult: (a.adult + b.adult) / 2 };
}
