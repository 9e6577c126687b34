/**
 * A small seeded PRNG (mulberry32) and helpers: training runs, colour clustering, generated test pictures and
 * evaluation sets are reproducible bit for bit.
 */
export type Random = () => number;

/** Uniform numbers in [0, 1) from a 32-bit seed, or from a text (hashed with `seedOf`). */
export function seededRandom(seed: number | string): Random {
  let a = (typeof seed === 'string' ? seedOf(seed) : seed) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates shuffle in place. */
export function shuffleInPlace<T>(items: T[] | Int32Array, random: Random): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
}

/** A 32-bit seed from any text (FNV-1a), e.g. a service id. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
