/**
 * The operator's logo library: registering brands with reference artwork (features extracted on the
 * inference pool, stored in PostgreSQL), listing and deleting them. Every change bumps the library version,
 * which every backend process checks before matching.
 */
import type pg from 'pg';
import { ApiError, charLength } from '@iris/shared';
import type { ReferenceFeatures } from '../../vision/logo/logo-features.js';
import { EXTRACTOR } from '../../vision/logo/logo-params.js';
import { ImageDecodeError } from '../../images/image-decoder.js';
import type { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { InferenceTaskError, type InferencePool } from '../../inference/inference-pool.js';
import type { LogoExtractPayload } from '../../inference/tasks/logo-extract.task.js';
import { readUpload, type UploadedFile } from '../../http/request-body.js';
import { inTransaction } from '../../db/transaction.js';
import * as repo from './logo.repo.js';

export const BRAND_NAME_MAX_CHARS = 64;
/** File fields that carry reference artwork. */
export const REFERENCE_FIELDS = new Set(['images', 'images[]', 'image']);

export interface LogoServiceDeps {
  db: pg.Pool;
  pool: InferencePool;
  decoder: ImageDecoderPool;
}

export interface RegisterInput {
  brand: string | undefined;
  brandZh: string | undefined;
  files: UploadedFile[];
}

export interface BrandDetails {
  brand: repo.BrandRow;
  images: repo.ReferenceSummaryRow[];
}

function brandName(value: string | undefined, field: string, required: boolean): string | null {
  const name = (value ?? '').trim();
  if (!name) {
    if (required) throw new ApiError('invalidData', `${field} is required`);
    return null;
  }
  if (charLength(name) > BRAND_NAME_MAX_CHARS) throw new ApiError('invalidData', `${field} must be at most ${BRAND_NAME_MAX_CHARS} characters`);
  return name;
}

export function parseBrandId(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new ApiError('notFound', `logo brand ${value} does not exist`);
  return Number(value);
}

export class LogoService {
  constructor(private readonly deps: LogoServiceDeps) {}

  /** Adds a brand (or more artwork to an existing brand of the same name) with every uploaded reference image. */
  async register(input: RegisterInput): Promise<BrandDetails> {
    const name = brandName(input.brand, 'brand', true)!;
    const nameZh = brandName(input.brandZh, 'brand_zh', false);
    const files = input.files.filter((f) => REFERENCE_FIELDS.has(f.field));
    if (!files.length) throw new ApiError('invalidData', 'at least one reference image file (field images) is required');
    // Every file is checked before anything is stored: a request registers all its images or none.
    const references: repo.NewReference[] = [];
    for (const file of files) references.push(await this.describe(file.filename, await readUpload(file)));
    const brandId = await inTransaction(this.deps.db, async (client) => {
      const id = await repo.upsertBrand(client, name, nameZh);
      for (const ref of references) await repo.insertReference(client, id, ref);
      await repo.bumpLibraryVersion(client);
      return id;
    });
    return (await this.get(brandId))!;
  }

  list(): Promise<repo.BrandRow[]> {
    return repo.listBrands(this.deps.db);
  }

  async get(id: number): Promise<BrandDetails | null> {
    const brand = await repo.findBrand(this.deps.db, id);
    return brand ? { brand, images: await repo.listReferences(this.deps.db, id) } : null;
  }

  async delete(id: number): Promise<void> {
    const deleted = await inTransaction(this.deps.db, async (client) => {
      const done = await repo.deleteBrand(client, id);
      if (done) await repo.bumpLibraryVersion(client);
      return done;
    });
    if (!deleted) throw new ApiError('notFound', `logo brand ${id} does not exist`);
  }

  /** Re-describes stored artwork whose features come from an older recipe; returns how many were updated. */
  async refreshStale(): Promise<number> {
    const stale = await repo.staleReferences(this.deps.db, EXTRACTOR);
    for (const row of stale) {
      const ref = await this.describe(`reference ${row.id}`, row.image);
      await inTransaction(this.deps.db, async (client) => {
        await repo.updateReferenceFeatures(client, row.id, ref);
        await repo.bumpLibraryVersion(client);
      });
    }
    return stale.length;
  }

  private async describe(filename: string, bytes: Buffer): Promise<repo.NewReference> {
    let decoded;
    try {
      decoded = await this.deps.decoder.reference(bytes);
    } catch (err) {
      if (err instanceof ImageDecodeError) throw new ApiError('invalidData', `${filename}: ${err.message}`);
      throw err;
    }
    let features: ReferenceFeatures;
    try {
      features = await this.deps.pool.run('logo-extract', { image: decoded.rgba } satisfies LogoExtractPayload);
    } catch (err) {
      if (err instanceof InferenceTaskError && err.name === 'ReferenceImageError') throw new ApiError('invalidData', `${filename}: ${err.message}`);
      throw err;
    }
    return {
      filename: filename.slice(0, 255),
      image: decoded.png,
      extractor: EXTRACTOR,
      width: features.width,
      height: features.height,
      outline: features.outline,
      points: features.points,
      descriptors: features.descriptors,
      template: features.template,
    };
  }
}
