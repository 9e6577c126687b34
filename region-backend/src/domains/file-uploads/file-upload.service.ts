/**
 * Pictures from files: an uploaded picture is bounded, hashed, decoded under the pixel and time limits,
 * normalised into the blob store and recorded as a downloaded record keyed on its stable URL (file-names.ts).
 * The same picture under the same name is the same record: only its attributes change.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ApiError, type FilePart, type LookupFilesInput, type UploadFileInput } from '@iris/shared';
import { ImageDecodeError } from '../../images/image-errors.js';
import type { ImageConfig } from '../../images/image-config.js';
import type { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { InferenceTimeoutError } from '../../inference/inference-pool.js';
import { readUpload } from '../../http/request-body.js';
import { BlobGoneError } from '../blob-gc/blob-refs.repo.js';
import type { BlobWriter } from '../blob-gc/blob-writer.js';
import { fieldError } from '../data-sets/bulk-apply.js';
import { assertStoredBytes, type RecordQuotas } from '../data-sets/record-quotas.js';
import { findLiveRecord, recordInput, updateProductAttributes, upsertDownloadedRecord, upsertRecords, withLockedSet, type LockedSet, type RecordInput, type StoredBlob } from '../data-sets/record.repo.js';
import { productId, productText, RecordFieldError, recordMeta, recordTags } from '../data-sets/record-rules.js';
import { storeImage } from '../downloads/image-download.js';
import { resolveRecordSet } from '../set-records/set-records.repo.js';
import { heldUrls, type HeldStatus } from './file-upload.repo.js';
import { fileName, fileUrl } from './file-names.js';

export type UploadKind = 'image_sets' | 'product_sets';

export interface FileUploadDeps {
  pool: pg.Pool;
  blobs: BlobWriter;
  decoder: ImageDecoderPool;
  images: Pick<ImageConfig, 'storedMaxSide'>;
  /** The region's public base: every uploaded picture's URL starts with it. */
  base: string;
  /** An uploaded picture must be at most this many bytes (the download cap). */
  maxBytes: number;
}

export interface Uploaded {
  url: string;
  stored: boolean;
  width: number | null;
  height: number | null;
}

export class FileUploadService {
  constructor(private readonly deps: FileUploadDeps) {}

  async upload(accountId: number, kind: UploadKind, id: string, fields: UploadFileInput, quotas?: RecordQuotas): Promise<Uploaded> {
    const file = fields.file;
    if (typeof file === 'string') throw new ApiError('invalidData', 'file must be a file part of a multipart body');
    if (file.size > this.deps.maxBytes) throw new ApiError('payloadTooLarge', `a picture must be at most ${this.deps.maxBytes} bytes`);
    const setId = await this.setOf(accountId, kind, id);
    const bytes = await readUpload(file);
    const input = this.recordOf(kind, fields, file, createHash('sha256').update(bytes).digest('hex'));
    const lock = { accountId, kind: kind === 'image_sets' ? ('image_set' as const) : ('product_images' as const), touch: true };
    const write = async (tx: LockedSet, blob?: StoredBlob) => {
      if (blob) await upsertDownloadedRecord(tx, accountId, input, blob);
      else await upsertRecords(tx, accountId, [input]);
      if (kind === 'product_sets') await updateProductAttributes(tx, [input]);
    };

    if (await findLiveRecord(this.deps.pool, setId, input.productId, input.url)) {
      if (!(await withLockedSet(this.deps.pool, setId, lock, (tx) => write(tx)))) throw this.notFound(kind, id);
      return { url: input.url, stored: false, width: null, height: null };
    }
    await assertStoredBytes(this.deps.pool, accountId, quotas);
    // Twice at most: the stored picture may be collected between storing and recording it (BlobGoneError).
    for (let attempt = 1; ; attempt++) {
      const blob = await this.store(bytes, () => assertStoredBytes(this.deps.pool, accountId, quotas));
      try {
        if (!(await withLockedSet(this.deps.pool, setId, { ...lock, quotas }, (tx) => write(tx, blob)))) throw this.notFound(kind, id);
        return { url: input.url, stored: true, width: blob.width, height: blob.height };
      } catch (err) {
        if (!(err instanceof BlobGoneError) || attempt >= 2) throw err;
      }
    }
  }

  /** The URL each file would have, and its record's status when the set holds it. */
  async lookup(accountId: number, kind: UploadKind, id: string, input: LookupFilesInput): Promise<{ name: string; sha256: string; url: string; status: HeldStatus | null }[]> {
    const setId = await this.setOf(accountId, kind, id);
    const files = input.files.map((f, i) => {
      try {
        return { ...f, url: fileUrl(this.deps.base, f.sha256, fileName(f.name)) };
      } catch (err) {
        if (err instanceof RecordFieldError) throw new ApiError('invalidData', `files[${i}]: ${err.message}`);
        throw err;
      }
    });
    const held = await heldUrls(this.deps.pool, setId, files.map((f) => f.url));
    return files.map((f) => ({ name: f.name, sha256: f.sha256, url: f.url, status: held.get(f.url) ?? null }));
  }

  private async setOf(accountId: number, kind: UploadKind, id: string): Promise<string> {
    const setId = await resolveRecordSet(this.deps.pool, accountId, kind, id);
    if (!setId) throw this.notFound(kind, id);
    return setId;
  }

  private notFound(kind: UploadKind, id: string): ApiError {
    return kind === 'product_sets' ? new ApiError('productSetNotFound', `product set ${id} does not exist`) : new ApiError('setNotFound', `image set ${id} does not exist`);
  }

  private recordOf(kind: UploadKind, fields: UploadFileInput, file: FilePart, sha256: string): RecordInput {
    try {
      const url = fileUrl(this.deps.base, sha256, fileName(fields.name ?? file.filename));
      const common = { url, meta: recordMeta(fields.meta), tags: recordTags(fields.tags) };
      if (kind === 'image_sets') return recordInput(common);
      return recordInput({ ...common, productId: productId(fields.product_id), price: productText(fields.price, 'price'), keywords: productText(fields.keywords, 'keywords') });
    } catch (err) {
      return fieldError(err);
    }
  }

  private async store(bytes: Uint8Array, admit: () => Promise<void>): Promise<StoredBlob> {
    try {
      return await storeImage(this.deps.blobs, this.deps.images, this.deps.decoder, bytes, { admit });
    } catch (err) {
      if (err instanceof ImageDecodeError) {
        if (err.cause instanceof InferenceTimeoutError) throw new ApiError('taskTimeout', `decoding the picture ran over its time limit: ${err.message}`);
        throw new ApiError('invalidData', `the file is not a picture Iris can read: ${err.message}`);
      }
      throw err;
    }
  }
}
