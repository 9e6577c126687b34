/** Product sets and their products: the rules of every operation. */
import type pg from 'pg';
import {
  ApiError,
  type AddProductInput,
  type AddProductsInput,
  type CreateProductSetInput,
  type DeleteProductsFileInput,
  type ModifyProductSetInput,
} from '@iris/shared';
import { internalId } from '../../http/request-context.js';
import { applyBulkFile, fieldError, mapRows, openBulkSource } from '../data-sets/bulk-apply.js';
import type { BulkWriteTurns } from '../data-sets/bulk-write-turns.js';
import { jsonLines } from '../data-sets/bulk-rows.js';
import { assertStoredBytes, type RecordQuotas } from '../data-sets/record-quotas.js';
import { deleteRecordsByProduct, updateProductAttributes, upsertRecords, withLockedSet, type RecordInput } from '../data-sets/record.repo.js';
import { setDescription, setName } from '../data-sets/record-rules.js';
import { assertSetNotInUse } from '../data-sets/set-usage.js';
import type { DownloadService } from '../downloads/download.service.js';
import { productIdToDelete, productInput, productRowToAdd } from './product-files.js';
import {
  deleteProductSets,
  findProductSet,
  insertProductSet,
  listProductSets,
  listProducts,
  productsByIds,
  updateProductSet,
  type ProductRow,
  type ProductSetRow,
} from './product-set.repo.js';

const MAX_PAGE_COUNT = 1000;

export class ProductSetService {
  constructor(private readonly deps: { pool: pg.Pool; downloads: DownloadService; bulkWrites?: BulkWriteTurns }) {}

  async create(accountId: number, id: string, fields: CreateProductSetInput): Promise<ProductSetRow> {
    const name = setName(fields.name);
    if (!name) throw new ApiError('productSetNameMissing', 'name is required');
    const existing = await findProductSet(this.deps.pool, accountId, id);
    if (existing) return existing;
    await insertProductSet(this.deps.pool, { id, accountId, name, description: setDescription(fields.description), imageSetId: internalId() });
    return this.get(accountId, id);
  }

  list(accountId: number): Promise<ProductSetRow[]> {
    return listProductSets(this.deps.pool, accountId);
  }

  async get(accountId: number, id: string): Promise<ProductSetRow> {
    const row = await findProductSet(this.deps.pool, accountId, id);
    if (!row) throw new ApiError('productSetNotFound', 'product set does not exist');
    return row;
  }

  async modify(accountId: number, id: string, fields: ModifyProductSetInput): Promise<ProductSetRow> {
    await this.get(accountId, id);
    if (fields.name === undefined && fields.description === undefined) throw new ApiError('productSetNameMissing', 'give name or description');
    const changes: { name?: string; description?: string } = {};
    if (fields.name !== undefined) {
      const name = setName(fields.name);
      if (!name) throw new ApiError('productSetNameMissing', 'name must not be empty');
      changes.name = name;
    }
    if (fields.description !== undefined) changes.description = setDescription(fields.description);
    await updateProductSet(this.deps.pool, accountId, id, changes);
    return this.get(accountId, id);
  }

  /** Deletes one product set (404/1004 when missing, 403/3001 in use, 500/2002 when the deletion fails). */
  async delete(accountId: number, id: string): Promise<void> {
    const row = await this.get(accountId, id);
    await assertSetNotInUse([row.id, row.image_set_id], 'the product set');
    await this.deleteRows(accountId, [row.id]);
  }

  /** Deletes every product set of the account (none when one of them is in use); returns the ids deleted. */
  async deleteAll(accountId: number): Promise<string[]> {
    const rows = await this.list(accountId);
    await assertSetNotInUse(
      rows.flatMap((r) => [r.id, r.image_set_id]),
      'a product set',
    );
    return rows.length ? this.deleteRows(accountId, rows.map((r) => r.id)) : [];
  }

  /** Add or update one product (downloads in the background, like files). */
  async addProduct(accountId: number, id: string, fields: AddProductInput, quotas?: RecordQuotas): Promise<void> {
    const set = await this.get(accountId, id);
    await assertStoredBytes(this.deps.pool, accountId, quotas);
    let input: RecordInput;
    try {
      input = productInput(fields);
    } catch (err) {
      fieldError(err);
    }
    const done = await withLockedSet(this.deps.pool, set.image_set_id, { accountId, kind: 'product_images', touch: true, quotas }, async (tx) => {
      const { pending } = await upsertRecords(tx, accountId, [input]);
      await updateProductAttributes(tx, [input]);
      return pending;
    });
    if (!done) throw new ApiError('productSetNotFound', 'product set does not exist');
    if (done.value) await this.deps.downloads.enqueue(set.image_set_id);
  }

  /** `products_to_add`: JSON lines, upsert by product_id (+ image URL), all or nothing. */
  async addProducts(accountId: number, id: string, input: AddProductsInput, quotas?: RecordQuotas): Promise<void> {
    const set = await this.get(accountId, id);
    await assertStoredBytes(this.deps.pool, accountId, quotas);
    const source = await openBulkSource(input.products_to_add);
    let pending = 0;
    try {
      const done = await applyBulkFile(
        this.deps,
        { accountId, setId: set.image_set_id, kind: 'product_images', quotas },
        mapRows(jsonLines(source), productRowToAdd),
        async (tx, batch) => {
          pending += (await upsertRecords(tx, accountId, batch)).pending;
          await updateProductAttributes(tx, batch);
        },
      );
      if (!done) throw new ApiError('productSetNotFound', 'product set does not exist');
    } finally {
      source.destroy();
    }
    if (pending) await this.deps.downloads.enqueue(set.image_set_id);
  }

  /** `products_to_delete`: JSON lines naming product_id, all or nothing. */
  async deleteProductsByFile(accountId: number, id: string, input: DeleteProductsFileInput): Promise<void> {
    const set = await this.get(accountId, id);
    const source = await openBulkSource(input.products_to_delete);
    try {
      const done = await applyBulkFile(
        this.deps,
        { accountId, setId: set.image_set_id, kind: 'product_images' },
        mapRows(jsonLines(source), productIdToDelete),
        async (tx, batch) => {
          await deleteRecordsByProduct(tx, batch);
        },
      );
      if (!done) throw new ApiError('productSetNotFound', 'product set does not exist');
    } finally {
      source.destroy();
    }
  }

  async deleteProductsByIds(accountId: number, id: string, ids: string[]): Promise<number> {
    const set = await this.get(accountId, id);
    const done = await withLockedSet(this.deps.pool, set.image_set_id, { accountId, kind: 'product_images', touch: true }, (tx) => deleteRecordsByProduct(tx, ids));
    if (!done) throw new ApiError('productSetNotFound', 'product set does not exist');
    return done.value;
  }

  /** Page `page` (0-based) of `count` products. */
  async listProducts(accountId: number, id: string, page: number, count: number): Promise<{ total: number; rows: ProductRow[] }> {
    const set = await this.get(accountId, id);
    const size = Math.min(Math.max(count, 1), MAX_PAGE_COUNT);
    return listProducts(this.deps.pool, set.image_set_id, Math.max(page, 0) * size, size);
  }

  async productsByIds(accountId: number, id: string, ids: string[]): Promise<ProductRow[]> {
    const set = await this.get(accountId, id);
    return ids.length ? productsByIds(this.deps.pool, set.image_set_id, ids) : [];
  }

  private async deleteRows(accountId: number, ids: string[]): Promise<string[]> {
    try {
      return await deleteProductSets(this.deps.pool, accountId, ids);
    } catch (err) {
      throw new ApiError('productSetDeleteFailed', 'the product set could not be deleted', undefined, err);
    }
  }
}
