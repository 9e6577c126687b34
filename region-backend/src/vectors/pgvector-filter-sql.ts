/**
 * Tag and product filters as SQL predicates over the pgvector item table, with their values as parameters:
 * tags AND → `tags @> $n` (all of them), OR → `tags && $n` (any of them), nested expressions in parentheses
 * (both operators use the GIN index on `tags`); price bounds and keywords as in the product filter.
 */
import type { TagFilter } from './tag-filter.js';
import type { ProductFilter } from './vector-store.js';

/** Positional parameters of one statement. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function tagFilterSql(filter: TagFilter, params: SqlParams): string {
  switch (filter.kind) {
    case 'tag':
      return `tags @> ${params.add([filter.tag])}::text[]`;
    case 'and':
    case 'or': {
      const leaves = filter.of.filter((f) => f.kind === 'tag').map((f) => f.tag);
      const parts = filter.of.filter((f) => f.kind !== 'tag').map((f) => `(${tagFilterSql(f, params)})`);
      if (leaves.length) parts.unshift(`tags ${filter.kind === 'and' ? '@>' : '&&'} ${params.add(leaves)}::text[]`);
      return parts.join(filter.kind === 'and' ? ' AND ' : ' OR ');
    }
  }
}

export function productFilterSql(filter: ProductFilter, params: SqlParams): string[] {
  const parts: string[] = [];
  if (filter.minPrice !== null) parts.push(`price > ${params.add(filter.minPrice)}`);
  if (filter.maxPrice !== null) parts.push(`price <= ${params.add(filter.maxPrice)}`);
  const whole = filter.keywords.filter((k) => !k.substring).map((k) => k.word);
  if (whole.length) parts.push(`words @> ${params.add(whole)}::text[]`);
  for (const { word } of filter.keywords.filter((k) => k.substring)) {
    const p = params.add(word);
    parts.push(`(words @> ARRAY[${p}]::text[] OR strpos(keywords, ${p}) > 0)`);
  }
  return parts;
}
