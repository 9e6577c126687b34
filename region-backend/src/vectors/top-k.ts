/** Keeps the k highest-scoring items seen (a bounded min-heap); used by exact scans. */
export class TopK {
  private readonly scores: Float64Array;
  private readonly items: Float64Array;
  private count = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(0, k));
    this.items = new Float64Array(Math.max(0, k));
  }

  get size(): number {
    return this.count;
  }

  /** The score an item must beat to enter (−∞ until k items are held). */
  get threshold(): number {
    return this.count < this.k ? -Infinity : this.scores[0]!;
  }

  push(score: number, item: number): void {
    if (this.k <= 0) return;
    if (this.count < this.k) {
      this.siftUp(this.count++, score, item);
    } else if (score > this.scores[0]!) {
      this.siftDown(0, score, item);
    }
  }

  /** Items best first. */
  sorted(): { item: number; score: number }[] {
    const out: { item: number; score: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ item: this.items[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.item - b.item);
  }

  private siftUp(index: number, score: number, item: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent]! <= score) break;
      this.scores[i] = this.scores[parent]!;
      this.items[i] = this.items[parent]!;
      i = parent;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }

  private siftDown(index: number, score: number, item: number): void {
    let i = index;
    const n = this.count;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.scores[right]! < this.scores[left]! ? right : left;
      if (this.scores[child]! >= score) break;
      this.scores[i] = this.scores[child]!;
      this.items[i] = this.items[child]!;
      i = child;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }
}
