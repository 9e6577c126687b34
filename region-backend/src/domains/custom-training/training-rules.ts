/**
 * When a training set cannot give a classifier, and the message that says why (the service's `message`):
 * no images, too many failed downloads, fewer than two labels, labels with too few usable images.
 */
import type { LabelDownloads } from './training-data.repo.js';

export interface TrainingRules {
  /** Usable (downloaded and decodable) images every label needs. */
  minImagesPerLabel: number;
  /** Largest share of the set's images whose download may fail. */
  maxFailedRatio: number;
}

const percent = (ratio: number) => `${(Math.round(ratio * 1000) / 10).toString()}%`;

const labelName = (label: string) => (label === '' ? '(empty label)' : label);

/** Problems visible once every download has finished (before any feature is computed). */
export function downloadProblem(labels: LabelDownloads[], rules: TrainingRules): string | null {
  const items = labels.reduce((sum, l) => sum + l.items, 0);
  if (items === 0) return 'the training set has no images';
  const failed = labels.reduce((sum, l) => sum + l.failed, 0);
  if (failed / items > rules.maxFailedRatio) {
    return `${failed} of ${items} images (${percent(failed / items)}) could not be downloaded; at most ${percent(rules.maxFailedRatio)} may fail`;
  }
  return labelProblem(new Map(labels.map((l) => [l.label, l.downloaded])), rules);
}

/**
 * Problems of the usable counts per label: fewer than two labels, or labels below the minimum (named with
 * their counts, smallest first). Null when training can go ahead.
 */
export function labelProblem(usable: ReadonlyMap<string, number>, rules: TrainingRules): string | null {
  const problems: string[] = [];
  const labels = [...usable.keys()].sort();
  if (labels.length < 2) {
    problems.push(
      labels.length === 0
        ? 'the training set has no labelled images; a classifier needs at least two labels'
        : `the training set has only one label (${labelName(labels[0]!)}); a classifier needs at least two labels`,
    );
  }
  const short = labels
    .map((label) => ({ label, n: usable.get(label) ?? 0 }))
    .filter((l) => l.n < rules.minImagesPerLabel)
    .sort((a, b) => a.n - b.n || (a.label < b.label ? -1 : 1));
  if (short.length) {
    const list = short.map((l) => `${labelName(l.label)} (${l.n})`).join(', ');
    problems.push(`${short.length === 1 ? 'label' : 'labels'} with fewer than ${rules.minImagesPerLabel} usable images: ${list}`);
  }
  return problems.length ? problems.join('; ') : null;
}
