/**
 * Bounds on request parameters, applied before any parser or regex sees them: the longest text of each
 * scalar parameter, the deepest JSON, and the most parts and fields in a body. Bulk fields (files sent as
 * text, id lists) are bounded by the body size instead.
 */

/** Longest accepted text of each scalar parameter, in UTF-16 code units (a bound, not the contract's own limit). */
export const PARAM_MAX_CHARS: Readonly<Record<string, number>> = {
  loc: 200,
  count: 32,
  page: 32,
  topk: 32,
  start: 32,
  min_price: 64,
  max_price: 64,
  amount: 64,
  tags: 8192,
  keywords: 4096,
  name: 1024,
  description: 4096,
  meta: 4096,
  label: 1024,
  labels: 65_536,
  brand: 1024,
  brand_zh: 1024,
  scenario: 128,
  sub_type: 64,
  service_id: 256,
  training_set_id: 256,
  image_set_id: 256,
  product_set_id: 256,
  task_id: 256,
  request_id: 256,
  product_id: 1024,
  url: 4096,
  image_url: 4096,
  lang: 32,
  ts: 64,
  token: 1024,
};

/** Deepest nesting of arrays and objects in any JSON the backend parses from a client. */
export const MAX_JSON_DEPTH = 32;
/** Most parts (fields and files) of a multipart body, and most fields of a form body. */
export const MAX_BODY_PARTS = 256;
export const MAX_BODY_FILES = 10;
/**
 * Text fields of one multipart body together (each is at most LIMITS.plainBodyBytes): 256 fields of 1 MB would
 * otherwise be a quarter of a gigabyte of strings held by one call.
 */
export const MAX_MULTIPART_TEXT_BYTES = 4 * 1024 * 1024;
/** A whole multipart body: one file under the 50 MB upload limit and its fields, never ten of them (500 MB on disk per call). */
export const MAX_MULTIPART_BYTES = 64 * 1024 * 1024;

/**
 * Parameters the specification truncates rather than refuses (set names to 16 characters, descriptions to
 * 128, a product-set service name to 32): past their cap they are cut, leading white space dropped first
 * (the services trim before they truncate), so what the service keeps is the same as from the whole value.
 */
const TRUNCATED = new Set(['name', 'description']);

/** Cuts the truncated parameters past their cap, in place (see TRUNCATED). */
export function cutTruncatedParams(fields: Record<string, string>): void {
  for (const name of TRUNCATED) {
    const value = fields[name];
    const max = PARAM_MAX_CHARS[name]!;
    if (value !== undefined && value.length > max) fields[name] = value.trimStart().slice(0, max);
  }
}

/** The first parameter over its cap, as a message, or null when all are within bounds. */
export function overlongParam(fields: Readonly<Record<string, string>>): string | null {
  for (const [name, max] of Object.entries(PARAM_MAX_CHARS)) {
    const value = fields[name];
    if (value !== undefined && value.length > max) return `${name} must be at most ${max} characters`;
  }
  return null;
}

/**
 * Nesting depth of JSON text, found by one linear scan that skips string contents; stops counting (and
 * returns) as soon as `limit` is passed, so `[[[[…` of any length costs one pass at most.
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}

export class JsonTooDeepError extends Error {
  constructor(readonly limit: number) {
    super(`JSON must not nest deeper than ${limit} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/** JSON.parse behind the depth bound (a SyntaxError for invalid text, as JSON.parse). */
export function parseBoundedJson(text: string, limit = MAX_JSON_DEPTH): unknown {
  if (jsonDepth(text, limit) > limit) throw new JsonTooDeepError(limit);
  return JSON.parse(text) as unknown;
}
