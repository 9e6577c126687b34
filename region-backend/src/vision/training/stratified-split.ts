/**
 * Held-out validation split by image (all rows of one image, e.g. its augmented views, stay on one side),
 * stratified by label: each label keeps the same fraction of its images for validation (at least one when it
 * has two or more), chosen by a seeded shuffle.
 */
import { seededRandom, shuffleInPlace } from '../../util/seeded-random.js';

export interface Split {
  /** Image (group) indexes used for fitting, ascending. */
  train: number[];
  /** Image (group) indexes held out, ascending. */
  validation: number[];
}

/** `groupLabels[g]` is the label of image g. */
export function stratifiedSplit(groupLabels: ArrayLike<number>, validationFraction: number, seed: number): Split {
  const byLabel = new Map<number, number[]>();
  for (let g = 0; g < groupLabels.length; g++) {
    const label = groupLabels[g]!;
    let list = byLabel.get(label);
    if (!list) byLabel.set(label, (list = []));
    list.push(g);
  }
  const random = seededRandom(seed);
  const train: number[] = [];
  const validation: number[] = [];
  for (const label of [...byLabel.keys()].sort((a, b) => a - b)) {
    const groups = byLabel.get(label)!;
    shuffleInPlace(groups, random);
    const held = groups.length < 2 ? 0 : Math.min(groups.length - 1, Math.max(1, Math.round(groups.length * validationFraction)));
    validation.push(...groups.slice(0, held));
    train.push(...groups.slice(held));
  }
  return { train: train.sort((a, b) => a - b), validation: validation.sort((a, b) => a - b) };
}
