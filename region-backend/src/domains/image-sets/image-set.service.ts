/** Image sets: the rules of every operation (routes parse, the repositories run SQL). */
import type pg from 'pg';
import {
  ApiError,
  type AddImageInput,
  type AddImagesInput,
  type CreateImageSetInput,
  type DeleteImagesInput,
  type ModifyImageSetInput,
} from '@iris/shared';
import type { BulkWriteTurns } from '../data-sets/bulk-write-turns.js';
import { addRecordsFromFile, deleteRecordsFromFile, fieldError } from '../data-sets/bulk-apply.js';
import { findLiveRecord, recordInput, upsertDownloadedRecord, upsertRecords, withLockedSet, type RecordInput } from '../data-sets/record.repo.js';
import { assertStoredBytes, type RecordQuotas } from '../data-sets/record-quotas.js';
import { recordMeta, recordTags, recordUrl, setDescription, setName } from '../data-sets/record-rules.js';
import { deleteDataSet, listDataSets, updateDataSet, type DataSetRow, type SetKind } from '../data-sets/set.repo.js';
import { createSet, requireSet } from '../data-sets/set.service.js';
import { assertSetNotInUse } from '../data-sets/set-usage.js';
import type { DownloadService } from '../downloads/download.service.js';
import { BlobGoneError } from '../blob-gc/blob-refs.repo.js';
import { DownloadFailure, StoredBytesExceeded } from '../downloads/image-download.js';
import { imageRowToAdd } from './image-set-files.js';

const KIND: SetKind = 'image_set';

export class ImageSetService {
  constructor(private readonly deps: { pool: pg.Pool; downloads: DownloadService; bulkWrites?: BulkWriteTurns }) {}

  async create(accountId: number, id: string, fields: CreateImageSetInput): Promise<DataSetRow> {
    const name = setName(fields.name);
    if (!name) throw new ApiError('setNameMissing', 'name is required');
    return createSet(this.deps.pool, { id, accountId, kind: KIND, name, description: setDescription(fields.description) });
  }

  list(accountId: number): Promise<DataSetRow[]> {
    return listDataSets(this.deps.pool, accountId, KIND);
  }

  get(accountId: number, id: string): Promise<DataSetRow> {
    return requireSet(this.deps.pool, accountId, id, KIND);
  }

  /** Name and/or description; a given name must not be blank. */
  async modify(accountId: number, id: string, fields: ModifyImageSetInput): Promise<DataSetRow> {
    if (fields.name === undefined && fields.description === undefined) throw new ApiError('setNameMissing', 'give name or description');
    const changes: { name?: string; description?: string } = {};
    if (fields.name !== undefined) {
      const name = setName(fields.name);
      if (!name) throw new ApiError('setNameMissing', 'name must not be empty');
      changes.name = name;
    }
    if (fields.description !== undefined) changes.description = setDescription(fields.description);
    if (!(await updateDataSet(this.deps.pool, accountId, id, KIND, changes))) await this.get(accountId, id);
    return this.get(accountId, id);
  }

  async delete(accountId: number, id: string): Promise<void> {
    await this.get(accountId, id);
    await assertSetNotInUse([id], 'the image set');
    if (!(await deleteDataSet(this.deps.pool, accountId, id, KIND))) await this.get(accountId, id);
  }

  /**
   * Add one image: an existing URL only takes the new meta and tags; a new one is downloaded now and kept
   * only when the download works (500/4001 otherwise).
   */
  async addOne(accountId: number, id: string, fields: AddImageInput, quotas?: RecordQuotas): Promise<DataSetRow> {
    await this.get(accountId, id);
    let input: RecordInput;
    try {
      input = recordInput({ url: recordUrl(fields.image_url ?? fields.url), meta: recordMeta(fields.meta), tags: recordTags(fields.tags) });
    } catch (err) {
      fieldError(err);
    }
    await addOneRecord(this.deps, accountId, id, KIND, input, quotas);
    return this.get(accountId, id);
  }

  /** `urls_to_add`: CSV `url,meta,tags` (or a .tar.gz holding it), all or nothing; new URLs download in the background. */
  async addMany(accountId: number, id: string, input: AddImagesInput, quotas?: RecordQuotas): Promise<DataSetRow> {
    await this.get(accountId, id);
    await addRecordsFromFile(this.deps, { accountId, setId: id, kind: KIND, quotas }, input.urls_to_add, imageRowToAdd);
    return this.get(accountId, id);
  }

  async deleteMany(accountId: number, id: string, input: DeleteImagesInput): Promise<DataSetRow> {
    await this.get(accountId, id);
    await deleteRecordsFromFile(this.deps, { accountId, setId: id, kind: KIND }, input.urls_to_delete);
    return this.get(accountId, id);
  }
}

/**
 * One record added synchronously: an existing record (same key) only takes the new attributes; a new one
 * is downloaded first (URL cache first) and stored only when that worked.
 */
export async function addOneRecord(
  deps: { pool: pg.Pool; downloads: DownloadService },
  accountId: number,
  setId: string,
  kind: SetKind,
  input: RecordInput,
  quotas?: RecordQuotas,
): Promise<void> {
  const existing = await findLiveRecord(deps.pool, setId, input.productId, input.url);
  if (existing) {
    await withLockedSet(deps.pool, setId, { accountId, kind, touch: true }, (tx) => upsertRecords(tx, accountId, [input]));
    return;
  }
  await assertStoredBytes(deps.pool, accountId, quotas);
  // Twice at most: the stored image may be collected between downloading and recording it (BlobGoneError).
  for (let attempt = 1; ; attempt++) {
    let blob;
    try {
      blob = await deps.downloads.downloadNow(accountId, input.url);
    } catch (err) {
      if (err instanceof StoredBytesExceeded) throw new ApiError('storedBytesQuota', `the account's stored images reached ${err.limit} bytes`);
      if (err instanceof DownloadFailure) throw new ApiError('imageDownloadFailed', `the image cannot be downloaded: ${err.message}`);
      throw err;
    }
    try {
      const done = await withLockedSet(deps.pool, setId, { accountId, kind, touch: true, quotas }, (tx) => upsertDownloadedRecord(tx, accountId, input, blob));
      if (!done) throw new ApiError('setNotFound', 'image set does not exist');
      return;
    } catch (err) {
      if (!(err instanceof BlobGoneError) || attempt >= 2) throw err;
    }
  }
}
