/** Exact (brute-force) retrieval metrics over L2-normalised vectors, for evaluation suites. */

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Rank (0 = first) of gallery item `target` for a query, ignoring gallery items in `ignore` (e.g. other
 * edits of the query's own photo, which are neither right nor wrong answers).
 */
export function rankOf(query: Float32Array, gallery: Float32Array[], target: number, ignore: ReadonlySet<number> = new Set()): number {
  const score = dot(query, gallery[target]!);
  let rank = 0;
  for (let i = 0; i < gallery.length; i++) {
    if (i === target || ignore.has(i)) continue;
    if (dot(query, gallery[i]!) > score) rank++;
  }
  return rank;
}

/** Indexes of the k most similar gallery items. */
export function topK(query: Float32Array, gallery: Float32Array[], k: number): number[] {
  const best: { i: number; s: number }[] = [];
  for (let i = 0; i < gallery.length; i++) {
    const s = dot(query, gallery[i]!);
    if (best.length < k || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > k) best.pop();
    }
  }
  return best.map((b) => b.i);
}

/** Mean precision@k of label retrieval, overall and per query label. */
export function precisionAtK(
  queries: Float32Array[],
  queryLabels: ArrayLike<number>,
  gallery: Float32Array[],
  galleryLabels: ArrayLike<number>,
  k: number,
): { overall: number; perLabel: Map<number, number> } {
  const sums = new Map<number, { sum: number; n: number }>();
  let total = 0;
  queries.forEach((q, qi) => {
    const label = queryLabels[qi]!;
    const hits = topK(q, gallery, k).filter((g) => galleryLabels[g] === label).length / k;
    total += hits;
    const entry = sums.get(label) ?? { sum: 0, n: 0 };
    entry.sum += hits;
    entry.n++;
    sums.set(label, entry);
  });
  const perLabel = new Map([...sums].map(([label, { sum, n }]) => [label, sum / n]));
  return { overall: queries.length ? total / queries.length : NaN, perLabel };
}
