/** Response mapping of product sets and products. */
import type { z } from 'zod';
import { formatTime, joinTags, type Product, type ProductSet, type ProductSetResponse } from '@iris/shared';
import { setStatus } from '../data-sets/set-view.js';
import type { ProductRow, ProductSetRow } from './product-set.repo.js';

export type ProductSetObject = z.input<typeof ProductSet>;

export function productSetObject(row: ProductSetRow): ProductSetObject;
export function productSetObject(row: ProductSetRow, requestId: string): z.input<typeof ProductSetResponse>;
export function productSetObject(row: ProductSetRow, requestId?: string): ProductSetObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    created_at: formatTime(row.created_at),
    modified_at: formatTime(row.modified_at),
    creator_id: Number(row.account_id),
    image_set_id: row.image_set_id,
    status: setStatus(row),
    ...(requestId !== undefined ? { request_id: requestId } : {}),
  };
}

/** A product: its attributes as added (tags `|`-joined, as in the files) and every image with its download status. */
export function productObject(row: ProductRow): z.input<typeof Product> {
  return {
    product_id: row.product_id,
    url: row.images[0]?.url ?? '',
    price: row.price,
    keywords: row.keywords,
    meta: row.meta,
    tags: joinTags(row.tags ?? []),
    images: row.images,
    created_at: formatTime(row.created_at),
    modified_at: formatTime(row.modified_at),
  };
}
