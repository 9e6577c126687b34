import { describe, expect, it } from 'vitest';
import { labelPuid, rankLabels } from './classifier-inference.js';
import { parseTopk } from './custom-training.routes.js';
import { downloadProblem, labelProblem } from './training-rules.js';

const rules = { minImagesPerLabel: 50, maxFailedRatio: 0.2 };
const label = (name: string, downloaded: number, failed = 0) => ({ label: name, items: downloaded + failed, downloaded, failed, unfinished: 0 });

describe('training rules', () => {
  it('accepts two labels with enough images', () => {
    expect(downloadProblem([label('cat', 50), label('dog', 60, 5)], rules)).toBeNull();
    expect(labelProblem(new Map([['cat', 50], ['dog', 51]]), rules)).toBeNull();
  });

  it('names why a set cannot be trained', () => {
    expect(downloadProblem([], rules)).toBe('the training set has no images');
    expect(downloadProblem([label('cat', 60, 20), label('dog', 60, 11)], rules)).toBe('31 of 151 images (20.5%) could not be downloaded; at most 20% may fail');
    expect(downloadProblem([label('cat', 60, 20), label('dog', 80)], rules)).toBeNull();
    expect(labelProblem(new Map([['cat', 80]]), rules)).toBe('the training set has only one label (cat); a classifier needs at least two labels');
    expect(labelProblem(new Map([['cat', 12]]), rules)).toBe(
      'the training set has only one label (cat); a classifier needs at least two labels; label with fewer than 50 usable images: cat (12)',
    );
    expect(labelProblem(new Map(), rules)).toMatch(/no labelled images/);
    expect(labelProblem(new Map([['owl', 49], ['cat', 80], ['dog', 3], ['ant', 49]]), rules)).toBe('labels with fewer than 50 usable images: dog (3), ant (49), owl (49)');
  });
});

describe('inference answers', () => {
  it('ranks labels by probability, cuts to topk, keeps stable puids', () => {
    const ranked = rankLabels(['a', 'b', 'c'], [0.2, 0.5, 0.3], 2);
    expect(ranked.map((r) => r.category)).toEqual(['b', 'c']);
    expect(ranked[0]).toEqual({ category: 'b', puid: labelPuid('b'), score: 0.5 });
    expect(rankLabels(['a', 'b'], [0.5, 0.5], 5).map((r) => r.category)).toEqual(['a', 'b']);
    expect(labelPuid('b')).toMatch(/^custom\.[0-9a-f]{16}$/);
    expect(labelPuid('b')).not.toBe(labelPuid('c'));
  });

  it('parses topk', () => {
    expect(parseTopk(undefined, 5)).toBe(5);
    expect(parseTopk(' 3 ', 5)).toBe(3);
    expect(parseTopk('', 5)).toBe(5);
    for (const bad of ['0', '-1', '2.5', 'all']) expect(() => parseTopk(bad, 5)).toThrow(/positive integer/);
  });
});
