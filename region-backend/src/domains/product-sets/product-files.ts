/** Product fields as they arrive in a request or a JSON-lines file line. */
import { BulkFileError, type JsonRow } from '../data-sets/bulk-rows.js';
import { recordInput, type RecordInput } from '../data-sets/record.repo.js';
import { productId, productText, recordMeta, recordTags, recordUrl } from '../data-sets/record-rules.js';

/** `product_id`, `image_url` (or `url`), `price` (number or string), `keywords` (string or list), `meta`, `tags`. */
export function productInput(value: Record<string, unknown>): RecordInput {
  const keywords = Array.isArray(value.keywords) ? value.keywords.map(String).join(' ') : value.keywords;
  return recordInput({
    productId: productId(value.product_id),
    url: recordUrl(value.image_url ?? value.url),
    price: productText(value.price, 'price'),
    keywords: productText(keywords, 'keywords'),
    meta: recordMeta(value.meta),
    tags: recordTags(value.tags),
  });
}

export function productRowToAdd(row: JsonRow): RecordInput {
  return productInput(row.value);
}

export function productIdToDelete(row: JsonRow): string {
  if (row.value.product_id === undefined) throw new BulkFileError(row.line, 'product_id is missing');
  return productId(row.value.product_id);
}

/** Product ids of a by-ids call: JSON `{"ids": [...]}`, or `ids` as a JSON list or comma-joined text (form, multipart, query). */
export function idsFrom(json: unknown, field: string | undefined): string[] | null {
  let list: unknown = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>).ids : undefined;
  if (list === undefined && field !== undefined) {
    const text = field.trim();
    if (text.startsWith('[')) {
      try {
        list = JSON.parse(text);
      } catch {
        return null;
      }
    } else {
      list = text.split(',');
    }
  }
  if (list === undefined) return null;
  if (!Array.isArray(list)) list = [list];
  return [...new Set((list as unknown[]).map((v) => String(v).trim()).filter(Boolean))];
}
