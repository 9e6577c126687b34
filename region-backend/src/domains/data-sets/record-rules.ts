/** Field rules shared by every kind of record (image, product, training) and by set names. */
import { LIMITS, charLength, splitTags, truncateChars } from '@iris/shared';

/** A field that breaks the specification's rules; callers map it to 400/5001 (naming the line in files). */
export class RecordFieldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordFieldError';
  }
}

const MAX_PRODUCT_ID_CHARS = 256;
const MAX_LABEL_CHARS = 256;
const MAX_TEXT_CHARS = 4096;

function text(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  throw new RecordFieldError('must be a string');
}

/** An http(s) URL of at most 512 characters (the record key); surrounding white space is dropped. */
export function recordUrl(raw: unknown): string {
  const url = text(raw).trim();
  if (!url) throw new RecordFieldError('url is empty');
  if (charLength(url) > LIMITS.urlChars) throw new RecordFieldError(`url is longer than ${LIMITS.urlChars} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RecordFieldError(`not a valid URL: ${truncateChars(url, 80)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new RecordFieldError(`not an http(s) URL: ${truncateChars(url, 80)}`);
  if (!parsed.hostname) throw new RecordFieldError(`URL without a host: ${truncateChars(url, 80)}`);
  return url;
}

export function recordMeta(raw: unknown): string {
  const meta = text(raw);
  if (charLength(meta) > LIMITS.metaChars) throw new RecordFieldError(`meta is longer than ${LIMITS.metaChars} characters`);
  return meta;
}

/** Tags from the `|`-joined form (or a JSON array of strings). */
export function recordTags(raw: unknown): string[] {
  if (Array.isArray(raw)) return splitTags(raw.map((t) => text(t).replace(/\|/g, ' ')).join('|'));
  const joined = text(raw);
  if (charLength(joined) > MAX_TEXT_CHARS) throw new RecordFieldError(`tags are longer than ${MAX_TEXT_CHARS} characters`);
  return splitTags(joined);
}

export function productId(raw: unknown): string {
  const id = text(raw).trim();
  if (!id) throw new RecordFieldError('product_id is missing');
  if (charLength(id) > MAX_PRODUCT_ID_CHARS) throw new RecordFieldError(`product_id is longer than ${MAX_PRODUCT_ID_CHARS} characters`);
  return id;
}

/** Free text attributes of products (price, keywords): kept as given, bounded. */
export function productText(raw: unknown, field: string): string {
  const value = text(raw).trim();
  if (charLength(value) > MAX_TEXT_CHARS) throw new RecordFieldError(`${field} is longer than ${MAX_TEXT_CHARS} characters`);
  return value;
}

/** A training label: non-empty, no comma (the CSV format cannot carry one). */
export function trainingLabel(raw: unknown): string {
  const label = text(raw).trim();
  if (!label) throw new RecordFieldError('label is missing');
  if (label.includes(',')) throw new RecordFieldError('label contains a comma');
  if (charLength(label) > MAX_LABEL_CHARS) throw new RecordFieldError(`label is longer than ${MAX_LABEL_CHARS} characters`);
  return label;
}

/** Set name: required (null when missing or blank), truncated to 16 Unicode characters. */
export function setName(raw: string | undefined): string | null {
  const name = (raw ?? '').trim();
  return name ? truncateChars(name, LIMITS.setNameChars) : null;
}

export function setDescription(raw: string | undefined): string {
  return truncateChars((raw ?? '').trim(), LIMITS.setDescriptionChars);
}
