/** SQL of the logo library: brands, their reference images' features, and the library version. */
import type pg from 'pg';
import { inTransaction } from '../../db/transaction.js';

export interface BrandRow {
  id: number;
  name: string;
  name_zh: string | null;
  created_at: Date;
  updated_at: Date;
  n_images: number;
}

export interface ReferenceSummaryRow {
  id: number;
  brand_id: number;
  filename: string;
  width: number;
  height: number;
  n_keypoints: number;
  created_at: Date;
}

export interface NewReference {
  filename: string;
  image: Buffer;
  extractor: string;
  width: number;
  height: number;
  outline: number[];
  points: Float32Array;
  descriptors: Uint8Array;
  template: { width: number; height: number; pixels: Uint8Array };
}

export interface LibraryRow {
  id: number;
  brand_id: number;
  extractor: string;
  width: number;
  height: number;
  outline: number[];
  n_keypoints: number;
  points: Buffer;
  descriptors: Buffer;
  template_width: number;
  template_height: number;
  template: Buffer;
}

export interface LibraryBrandRow {
  id: number;
  name: string;
  name_zh: string | null;
}

const BRAND_COLUMNS = `b.id, b.name, b.name_zh, b.created_at, b.updated_at,
  (SELECT count(*) FROM logo_references r WHERE r.brand_id = b.id)::int AS n_images`;

/** The brand of that name (case-insensitive), locked for the rest of the transaction; created when new. */
export async function upsertBrand(client: pg.PoolClient, name: string, nameZh: string | null): Promise<number> {
  const result = await client.query<{ id: number }>(
    `INSERT INTO logo_brands (name, name_zh) VALUES ($1, $2)
     ON CONFLICT ((lower(name))) DO UPDATE SET name_zh = COALESCE(EXCLUDED.name_zh, logo_brands.name_zh), updated_at = now()
     RETURNING id`,
    [name, nameZh],
  );
  return result.rows[0]!.id;
}

export async function insertReference(client: pg.PoolClient, brandId: number, ref: NewReference): Promise<void> {
  await client.query(
    `INSERT INTO logo_references (brand_id, filename, image, extractor, width, height, outline, n_keypoints, points, descriptors, template_width, template_height, template)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [brandId, ref.filename, ref.image, ref.extractor, ref.width, ref.height, ref.outline, ref.points.length / 2, bytesOf(ref.points), bytesOf(ref.descriptors), ref.template.width, ref.template.height, bytesOf(ref.template.pixels)],
  );
}

export async function bumpLibraryVersion(client: pg.PoolClient | pg.Pool): Promise<void> {
  await client.query('UPDATE logo_library SET version = version + 1');
}

export async function findBrand(db: pg.Pool | pg.PoolClient, id: number): Promise<BrandRow | null> {
  const result = await db.query<BrandRow>(`SELECT ${BRAND_COLUMNS} FROM logo_brands b WHERE b.id = $1`, [id]);
  return result.rows[0] ?? null;
}

export async function listBrands(pool: pg.Pool): Promise<BrandRow[]> {
  return (await pool.query<BrandRow>(`SELECT ${BRAND_COLUMNS} FROM logo_brands b ORDER BY b.id`)).rows;
}

export async function listReferences(db: pg.Pool | pg.PoolClient, brandId: number): Promise<ReferenceSummaryRow[]> {
  const result = await db.query<ReferenceSummaryRow>(
    'SELECT id, brand_id, filename, width, height, n_keypoints, created_at FROM logo_references WHERE brand_id = $1 ORDER BY id',
    [brandId],
  );
  return result.rows;
}

export async function deleteBrand(client: pg.PoolClient, id: number): Promise<boolean> {
  return ((await client.query('DELETE FROM logo_brands WHERE id = $1', [id])).rowCount ?? 0) > 0;
}

export async function libraryVersion(pool: pg.Pool): Promise<number> {
  return (await pool.query<{ version: number }>('SELECT version FROM logo_library')).rows[0]?.version ?? 0;
}

/** The whole library as of one snapshot: its version, brands and every reference's features. */
export async function loadLibrary(pool: pg.Pool): Promise<{ version: number; brands: LibraryBrandRow[]; references: LibraryRow[] }> {
  return inTransaction(
    pool,
    async (client) => {
      const version = (await client.query<{ version: number }>('SELECT version FROM logo_library')).rows[0]?.version ?? 0;
      const brands = (await client.query<LibraryBrandRow>('SELECT id, name, name_zh FROM logo_brands ORDER BY id')).rows;
      const references = (
        await client.query<LibraryRow>(`SELECT id, brand_id, extractor, width, height, outline, n_keypoints, points, descriptors, template_width, template_height, template
         FROM logo_references ORDER BY brand_id, id`)
      ).rows;
      return { version, brands, references };
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
}

/** References whose features come from another recipe than `extractor` (their stored artwork is re-described). */
export async function staleReferences(pool: pg.Pool, extractor: string): Promise<{ id: number; image: Buffer }[]> {
  return (await pool.query<{ id: number; image: Buffer }>('SELECT id, image FROM logo_references WHERE extractor <> $1 ORDER BY id', [extractor])).rows;
}

export async function updateReferenceFeatures(client: pg.PoolClient, id: number, ref: Omit<NewReference, 'filename' | 'image'>): Promise<void> {
  await client.query(
    `UPDATE logo_references SET extractor = $2, width = $3, height = $4, outline = $5, n_keypoints = $6, points = $7, descriptors = $8,
       template_width = $9, template_height = $10, template = $11
     WHERE id = $1`,
    [id, ref.extractor, ref.width, ref.height, ref.outline, ref.points.length / 2, bytesOf(ref.points), bytesOf(ref.descriptors), ref.template.width, ref.template.height, bytesOf(ref.template.pixels)],
  );
}

function bytesOf(view: ArrayBufferView): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}
