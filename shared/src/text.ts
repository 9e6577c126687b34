/** Length in Unicode code points (the specification counts "unicode characters", not UTF-16 units). */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Truncates to at most `max` Unicode code points without splitting a surrogate pair. */
export function truncateChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

/** Splits a `|`-joined tag string into a clean list (empty parts dropped, order kept, duplicates removed). */
export function splitTags(tags: string | null | undefined): string[] {
  if (!tags) return [];
  const seen = new Set<string>();
  for (const raw of tags.split('|')) {
    const tag = raw.trim();
    if (tag) seen.add(tag);
  }
  return [...seen];
}

export function joinTags(tags: readonly string[]): string {
  return tags.join('|');
}
