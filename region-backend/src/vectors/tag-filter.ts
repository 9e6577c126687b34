/**
 * The query `tags` parameter: a `|`-joined string (every tag must be present: AND), or JSON text of a nested
 * expression `{"and": [tag | expr, ...]}` / `{"or": [...]}` (PROTOCOL.md, "Tag filters").
 */
import { ApiError, splitTags } from '@iris/shared';

export type TagFilter =
  | { readonly kind: 'tag'; readonly tag: string }
  | { readonly kind: 'and'; readonly of: readonly TagFilter[] }
  | { readonly kind: 'or'; readonly of: readonly TagFilter[] };

export const TAG_FILTER_LIMITS = {
  /** Deepest accepted nesting of `and` / `or` objects. */
  depth: 8,
  /** Most tag leaves in one expression; bounds the cost of evaluating it per candidate. */
  leaves: 256,
} as const;

/** The one canonical form of a tag, used both when indexing and when filtering. */
export function normalizeTag(tag: string): string {
  return tag.trim().normalize('NFC');
}

/** Splits and cleans tags as they are stored: `|` inside a tag separates tags, blanks dropped, duplicates removed. */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of tags) for (const tag of splitTags(raw)) seen.add(tag.normalize('NFC'));
  return [...seen];
}

/**
 * Parses the `tags` parameter. Returns null when there is no filter (absent, blank or only separators).
 * A list (repeated form field, or a JSON array) means AND of its elements, each parsed like a whole parameter.
 * Throws `ApiError('invalidData')` for text that looks like JSON but is not a valid expression.
 */
export function parseTagFilter(text: string | readonly string[] | undefined | null): TagFilter | null {
  if (text === undefined || text === null) return null;
  if (typeof text !== 'string') {
    const parts = text.map((part) => parseTagFilter(part)).filter((f): f is TagFilter => f !== null);
    return combine('and', parts);
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return parseJsonExpression(trimmed);
  if (trimmed.startsWith('[')) {
    const list = tryParseJson(trimmed);
    if (Array.isArray(list)) return list.length === 0 ? null : fromJson({ and: list }, 'tags', 1, { leaves: 0 });
  }
  return combine('and', tagLeaves(trimmed));
}

/** True when the item's tags satisfy the filter (tags compared after `normalizeTag`). */
export function matchesTags(filter: TagFilter, tags: ReadonlySet<string> | readonly string[]): boolean {
  const set: ReadonlySet<string> = isReadonlySet(tags) ? tags : new Set(normalizeTags(tags));
  return evaluateTagFilter(filter, (tag) => set.has(tag));
}

/** Evaluates the filter against any tag-membership test (used by indexes that do not hold strings per item). */
export function evaluateTagFilter(filter: TagFilter, has: (tag: string) => boolean): boolean {
  switch (filter.kind) {
    case 'tag':
      return has(filter.tag);
    case 'and':
      return filter.of.every((f) => evaluateTagFilter(f, has));
    case 'or':
      return filter.of.some((f) => evaluateTagFilter(f, has));
  }
}

/** Every distinct tag the filter mentions. */
export function filterTags(filter: TagFilter, into: Set<string> = new Set()): Set<string> {
  if (filter.kind === 'tag') into.add(filter.tag);
  else for (const f of filter.of) filterTags(f, into);
  return into;
}

/** A stable text form (JSON expression) of a filter, e.g. for cache keys and logs. */
export function formatTagFilter(filter: TagFilter): string {
  return JSON.stringify(toJson(filter));
}

function toJson(filter: TagFilter): unknown {
  return filter.kind === 'tag' ? filter.tag : { [filter.kind]: filter.of.map(toJson) };
}

function isReadonlySet(value: ReadonlySet<string> | readonly string[]): value is ReadonlySet<string> {
  return value instanceof Set;
}

function tagLeaves(text: string): TagFilter[] {
  return normalizeTags([text]).map((tag) => ({ kind: 'tag', tag }));
}

function combine(kind: 'and' | 'or', parts: TagFilter[]): TagFilter | null {
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0]!;
  return { kind, of: parts };
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function invalid(message: string): ApiError {
  return new ApiError('invalidData', `invalid tags filter: ${message}`);
}

function parseJsonExpression(text: string): TagFilter {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw invalid('not valid JSON; expected {"and": [...]} or {"or": [...]} or tags joined with "|"');
  }
  return fromJson(value, 'tags', 1, { leaves: 0 });
}

function fromJson(value: unknown, where: string, depth: number, count: { leaves: number }): TagFilter {
  if (typeof value === 'string') {
    const leaves = tagLeaves(value);
    if (leaves.length === 0) throw invalid(`${where} is an empty tag`);
    count.leaves += leaves.length;
    if (count.leaves > TAG_FILTER_LIMITS.leaves) throw invalid(`more than ${TAG_FILTER_LIMITS.leaves} tags`);
    return combine('and', leaves)!;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${where} must be a tag string or an {"and"|"or": [...]} object, got ${describe(value)}`);
  }
  if (depth > TAG_FILTER_LIMITS.depth) throw invalid(`nested deeper than ${TAG_FILTER_LIMITS.depth} levels`);
  const keys = Object.keys(value);
  const key = keys[0]?.toLowerCase();
  if (keys.length !== 1 || (key !== 'and' && key !== 'or')) {
    throw invalid(`${where} must have exactly one key, "and" or "or" (got ${keys.map((k) => JSON.stringify(k)).join(', ') || 'none'})`);
  }
  const list = (value as Record<string, unknown>)[keys[0]!];
  if (!Array.isArray(list)) throw invalid(`${where}.${key} must be a list, got ${describe(list)}`);
  if (list.length === 0) throw invalid(`${where}.${key} is an empty list`);
  const parts = list.map((item: unknown, i) => fromJson(item, `${where}.${key}[${i}]`, depth + 1, count));
  return combine(key, parts)!;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
