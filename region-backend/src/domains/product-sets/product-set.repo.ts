/**
 * SQL for product sets. Each product set is bound to an internal image set (kind `product_images`) that
 * holds one record per product image; its counts give the product set's status.
 */
import type pg from 'pg';
import { inTransaction } from '../../db/transaction.js';
import { recordCounts, type Queryable } from '../data-sets/set.repo.js';

export interface ProductSetRow {
  id: string;
  account_id: number;
  name: string;
  description: string;
  image_set_id: string;
  created_at: Date;
  modified_at: Date;
  n_items: number;
  n_downloaded: number;
  n_failed: number;
}

const COUNTS = recordCounts('p.image_set_id');
const WITH_COUNTS = `
  SELECT p.id, p.account_id, p.name, p.description, p.image_set_id, p.created_at, p.modified_at, ${COUNTS.columns}
  FROM product_sets p
  ${COUNTS.join}`;

/** Creates the product set and its bound image set in one transaction. */
export async function insertProductSet(
  pool: pg.Pool,
  row: { id: string; accountId: number; name: string; description: string; imageSetId: string },
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(`INSERT INTO data_sets (id, account_id, kind, name, description) VALUES ($1, $2, 'product_images', $3, '')`, [
      row.imageSetId,
      row.accountId,
      row.name,
    ]);
    await client.query('INSERT INTO product_sets (id, account_id, name, description, image_set_id) VALUES ($1, $2, $3, $4, $5)', [
      row.id,
      row.accountId,
      row.name,
      row.description,
      row.imageSetId,
    ]);
  });
}

/** The product set of an account (with the counts of its bound image set), or null. */
export async function findProductSet(db: Queryable, accountId: number, id: string): Promise<ProductSetRow | null> {
  const result = await db.query<ProductSetRow>(`${WITH_COUNTS} WHERE p.account_id = $1 AND p.id = $2`, [accountId, id]);
  return result.rows[0] ?? null;
}

export async function listProductSets(db: Queryable, accountId: number): Promise<ProductSetRow[]> {
  const result = await db.query<ProductSetRow>(`${WITH_COUNTS} WHERE p.account_id = $1 ORDER BY p.created_at, p.id`, [accountId]);
  return result.rows;
}

export async function updateProductSet(db: Queryable, accountId: number, id: string, changes: { name?: string; description?: string }): Promise<boolean> {
  const result = await db.query(
    `UPDATE product_sets SET name = COALESCE($3, name), description = COALESCE($4, description), modified_at = now()
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, changes.name ?? null, changes.description ?? null],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Deletes product sets and their bound image sets (records by cascade) in one transaction; returns the ids deleted. */
export async function deleteProductSets(pool: pg.Pool, accountId: number, ids: string[]): Promise<string[]> {
  return inTransaction(pool, async (client) => {
    const deleted = await client.query<{ id: string; image_set_id: string }>(
      'DELETE FROM product_sets WHERE account_id = $1 AND id = ANY($2::text[]) RETURNING id, image_set_id',
      [accountId, ids],
    );
    await client.query(`DELETE FROM data_sets WHERE account_id = $1 AND kind = 'product_images' AND id = ANY($2::text[])`, [
      accountId,
      deleted.rows.map((r) => r.image_set_id),
    ]);
    return deleted.rows.map((r) => r.id);
  });
}

export interface ProductRow {
  product_id: string;
  price: string;
  keywords: string;
  meta: string;
  tags: string[] | null;
  images: { url: string; status: string }[];
  created_at: Date;
  modified_at: Date;
}

const PRODUCTS = `
  SELECT product_id,
         (array_agg(price ORDER BY id DESC))[1] AS price,
         (array_agg(keywords ORDER BY id DESC))[1] AS keywords,
         (array_agg(meta ORDER BY id DESC))[1] AS meta,
         (json_agg(tags ORDER BY id DESC))->0 AS tags,
         json_agg(json_build_object('url', url, 'status', status) ORDER BY id) AS images,
         min(created_at) AS created_at,
         max(updated_at) AS modified_at
  FROM data_set_records`;

/** One page of products (grouped image records) in the order they were first added. */
export async function listProducts(db: Queryable, imageSetId: string, offset: number, limit: number): Promise<{ total: number; rows: ProductRow[] }> {
  const [rows, total] = await Promise.all([
    db.query<ProductRow>(`${PRODUCTS} WHERE set_id = $1 AND deleted_at IS NULL GROUP BY product_id ORDER BY min(id) OFFSET $2 LIMIT $3`, [
      imageSetId,
      offset,
      limit,
    ]),
    db.query<{ n: number }>('SELECT count(DISTINCT product_id)::int AS n FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL', [imageSetId]),
  ]);
  return { total: total.rows[0]?.n ?? 0, rows: rows.rows };
}

export async function productsByIds(db: Queryable, imageSetId: string, productIds: string[]): Promise<ProductRow[]> {
  const result = await db.query<ProductRow>(
    `${PRODUCTS} WHERE set_id = $1 AND deleted_at IS NULL AND product_id = ANY($2::text[]) GROUP BY product_id ORDER BY min(id)`,
    [imageSetId, productIds],
  );
  return result.rows;
}
