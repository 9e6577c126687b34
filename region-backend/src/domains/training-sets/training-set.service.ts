/** Training sets: labelled image URLs for custom classifiers. */
import type pg from 'pg';
import {
  ApiError,
  truncateChars,
  LIMITS,
  type AddTrainingDataInput,
  type ClearTrainingSetInput,
  type CreateTrainingSetInput,
  type DeleteTrainingDataInput,
} from '@iris/shared';
import type { BulkWriteTurns } from '../data-sets/bulk-write-turns.js';
import { addRecordsFromFile, deleteRecordsFromFile } from '../data-sets/bulk-apply.js';
import type { RecordQuotas } from '../data-sets/record-quotas.js';
import { deleteAllRecords, withLockedSet } from '../data-sets/record.repo.js';
import { setDescription, setName } from '../data-sets/record-rules.js';
import { deleteDataSet, listDataSets, updateDataSet, type DataSetRow, type SetKind } from '../data-sets/set.repo.js';
import { createSet, requireSet } from '../data-sets/set.service.js';
import { assertSetNotInUse } from '../data-sets/set-usage.js';
import type { DownloadService } from '../downloads/download.service.js';
import { trainingRowToAdd } from './training-files.js';

const KIND: SetKind = 'training_set';

/** The clear token: base64 of `selfserve_admin:` followed by the set name. */
export function clearToken(name: string): string {
  return Buffer.from(`selfserve_admin:${name}`, 'utf8').toString('base64');
}

function requiredTexts(fields: CreateTrainingSetInput): { name: string; description: string } {
  const name = setName(fields.name);
  const description = setDescription(fields.description);
  if (!name || !description) throw new ApiError('setNameMissing', 'name and description are required');
  return { name, description };
}

export class TrainingSetService {
  constructor(private readonly deps: { pool: pg.Pool; downloads: DownloadService; bulkWrites?: BulkWriteTurns }) {}

  async create(accountId: number, id: string, fields: CreateTrainingSetInput): Promise<DataSetRow> {
    return createSet(this.deps.pool, { id, accountId, kind: KIND, ...requiredTexts(fields) });
  }

  list(accountId: number): Promise<DataSetRow[]> {
    return listDataSets(this.deps.pool, accountId, KIND);
  }

  get(accountId: number, id: string): Promise<DataSetRow> {
    return requireSet(this.deps.pool, accountId, id, KIND);
  }

  async modify(accountId: number, id: string, fields: CreateTrainingSetInput): Promise<DataSetRow> {
    await this.get(accountId, id);
    await updateDataSet(this.deps.pool, accountId, id, KIND, requiredTexts(fields));
    return this.get(accountId, id);
  }

  async delete(accountId: number, id: string): Promise<void> {
    await this.get(accountId, id);
    await assertSetNotInUse([id], 'the training set');
    if (!(await deleteDataSet(this.deps.pool, accountId, id, KIND))) await this.get(accountId, id);
  }

  /** `urls_to_add`: CSV `url,label`, all or nothing; new URLs download in the background. */
  async addData(accountId: number, id: string, input: AddTrainingDataInput, quotas?: RecordQuotas): Promise<DataSetRow> {
    await this.get(accountId, id);
    await addRecordsFromFile(this.deps, { accountId, setId: id, kind: KIND, quotas }, input.urls_to_add, trainingRowToAdd);
    return this.get(accountId, id);
  }

  /** `urls_to_delete`: the first column is the URL (a label or further columns are ignored); refused while the set is in use. */
  async deleteData(accountId: number, id: string, input: DeleteTrainingDataInput): Promise<DataSetRow> {
    await this.get(accountId, id);
    await assertSetNotInUse([id], 'the training set');
    await deleteRecordsFromFile(this.deps, { accountId, setId: id, kind: KIND }, input.urls_to_delete);
    return this.get(accountId, id);
  }

  /**
   * Removes every record, only when name, training_set_id and token all match the set: a different name
   * is 401/1004; a different id or a wrong token is 400/5001; a set in use is 403/3001.
   */
  async clear(accountId: number, id: string, fields: ClearTrainingSetInput): Promise<DataSetRow> {
    const set = await this.get(accountId, id);
    const name = fields.name ?? '';
    if (name !== set.name && truncateChars(name.trim(), LIMITS.setNameChars) !== set.name) {
      throw new ApiError('clearNameMismatch', 'name differs from the training set name');
    }
    if ((fields.training_set_id ?? '').trim() !== id) throw new ApiError('invalidData', 'training_set_id does not match the training set');
    const token = (fields.token ?? '').trim();
    if (token !== clearToken(name) && token !== clearToken(set.name)) throw new ApiError('invalidData', 'token does not match the training set');
    await assertSetNotInUse([id], 'the training set');
    await withLockedSet(this.deps.pool, id, { accountId, kind: KIND, touch: true }, (tx) => deleteAllRecords(tx));
    return this.get(accountId, id);
  }
}
