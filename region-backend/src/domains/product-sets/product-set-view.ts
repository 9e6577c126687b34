/** Response mapping of product sets and products. */
import { formatTime, joinTags } from '@iris/shared';
import { setStatus, type SetStatus } from '../data-sets/set-view.js';
import type { ProductRow, ProductSetRow } from './product-set.repo.js';

export interface ProductSetObject {
  id: string;
  name: string;
  description: string;
  created_at: string;
  modified_at: string;
  creator_id: number;
  image_set_id: string;
  status: SetStatus;
  request_id?: string;
}

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
export function productObject(row: ProductRow) {
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
