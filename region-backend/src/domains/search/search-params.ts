/** The parameters of `/search` and `/product_search`, validated before any image is fetched. */
import { ApiError, LIMITS } from '@iris/shared';
import { ImageDecodeError, parseLoc, type Loc } from '../../images/image-decoder.js';
import { parseTagFilter, type TagFilter } from '../../vectors/tag-filter.js';
import { keywordWords, parsePrice } from './product-filter.js';

export const SEARCH_LIMITS = {
  /** Most results per query: a larger `count` is answered with this many at most. */
  maxCount: 100,
  /** Deepest result reachable by paging: (page + 1) × count. */
  maxDepth: 2000,
} as const;

export interface SearchParams {
  count: number;
  page: number;
  /** Region of the query image, or null for the whole image. */
  loc: Loc | null;
  tags: TagFilter | null;
  /** Product search: words every result's keywords must contain (lower case). */
  keywords: string[];
  /** Product search: price > minPrice. */
  minPrice: number | null;
  /** Product search: price ≤ maxPrice. */
  maxPrice: number | null;
  /** Iris extension `rerank`: false (`rerank=0`) skips geometric re-ranking for this query. */
  rerank: boolean;
  /**
   * Iris extension `regions`: `auto` (default) searches the query's regions when the whole picture's match is
   * not decisive, `off` (`0`) never, `all` always and answers one group of results per region.
   */
  regions: RegionsMode;
}

export type RegionsMode = 'auto' | 'off' | 'all';

function regionsMode(value: string | undefined): RegionsMode {
  // Bounded before any work: a longer value is none of the modes.
  if (value !== undefined && value.length > 16) throw bad('regions must be auto, off or all');
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === 'auto' || text === '1' || text === 'true' || text === 'on') return 'auto';
  if (text === '0' || text === 'false' || text === 'off') return 'off';
  if (text === 'all') return 'all';
  throw bad('regions must be auto, off or all');
}

function flag(value: string | undefined, name: string): boolean {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '' || text === '1' || text === 'true' || text === 'on') return true;
  if (text === '0' || text === 'false' || text === 'off') return false;
  throw bad(`${name} must be 0 or 1`);
}

const bad = (message: string) => new ApiError('invalidData', message);

function integer(value: string | undefined, name: string, fallback: number, min: number, max = Infinity): number {
  const text = value?.trim();
  const range = max === Infinity ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw bad(`${name} must be ${range}`);
  const n = Number(text);
  if (n < min || n > max) throw bad(`${name} must be ${range}`);
  return n;
}

function price(value: string | undefined, name: string): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = parsePrice(value);
  if (n === null) throw bad(`${name} must be a number`);
  return n;
}

/** Words sent as text, or as a JSON list of strings (clients that pass lists as JSON). */
function listText(value: string | undefined): string {
  const text = value?.trim() ?? '';
  if (text.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(text);
      if (Array.isArray(list)) return list.map(String).join(' ');
    } catch {
      // plain text that starts with a bracket
    }
  }
  return text;
}

export function parseSearchParams(fields: Record<string, string>, product: boolean): SearchParams {
  // count is "the maximum number of results": asking for more than the service returns gets its most.
  const count = Math.min(SEARCH_LIMITS.maxCount, integer(fields.count, 'count', LIMITS.countDefault, 1));
  const page = product ? integer(fields.page, 'page', 0, 0, Math.floor(SEARCH_LIMITS.maxDepth / count) - 1) : 0;
  let loc: Loc | null = null;
  if (fields.loc?.trim()) {
    try {
      loc = parseLoc(fields.loc);
    } catch (err) {
      if (err instanceof ImageDecodeError) throw bad(`invalid loc: ${err.message}`);
      throw err;
    }
  }
  const params: SearchParams = { count, page, loc, tags: parseTagFilter(fields.tags), keywords: [], minPrice: null, maxPrice: null, rerank: flag(fields.rerank, 'rerank'), regions: regionsMode(fields.regions) };
  if (product) {
    params.keywords = keywordWords(listText(fields.keywords));
    params.minPrice = price(fields.min_price, 'min_price');
    params.maxPrice = price(fields.max_price, 'max_price');
  }
  return params;
}
