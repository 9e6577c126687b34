/**
 * The registered logos as this process holds them: loaded from PostgreSQL when the library's version row
 * moved (one tiny query per logo request), packed once into SharedArrayBuffers that every inference thread
 * reads without a copy. Another process's registration is therefore visible on the next request.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { libraryVersion, loadLibrary } from './logo.repo.js';
import type { ReferenceFeatures } from '../../vision/logo/logo-features.js';
import type { LibraryPayload, LibraryReference } from '../../vision/logo/logo-matcher.js';
import { DESCRIPTOR_BYTES, EXTRACTOR } from '../../vision/logo/logo-params.js';

export interface LogoBrand {
  id: number;
  name: string;
  nameZh: string | null;
}

export interface LogoLibrary {
  version: number;
  brands: ReadonlyMap<number, LogoBrand>;
  /** Null when no reference is registered: nothing to match, OpenCV is not needed. */
  payload: LibraryPayload | null;
}

export interface PackableReference {
  id: number;
  brand_id: number;
  width: number;
  height: number;
  outline: number[];
  n_keypoints: number;
  points: Uint8Array;
  descriptors: Uint8Array;
  template_width: number;
  template_height: number;
  template: Uint8Array;
}

/** Freshly extracted features as a packable row (tools that match without the database: eval, bench). */
export function packableReference(id: number, brandId: number, f: ReferenceFeatures): PackableReference {
  return {
    id,
    brand_id: brandId,
    width: f.width,
    height: f.height,
    outline: f.outline,
    n_keypoints: f.count,
    points: new Uint8Array(f.points.buffer, f.points.byteOffset, f.points.byteLength),
    descriptors: f.descriptors,
    template_width: f.template.width,
    template_height: f.template.height,
    template: f.template.pixels,
  };
}

/** Packs stored rows into shared buffers: one of points, one of descriptors, one of templates. */
export function packLibrary(key: string, rows: readonly PackableReference[]): LibraryPayload | null {
  if (!rows.length) return null;
  const total = rows.reduce((sum, r) => sum + r.n_keypoints, 0);
  const templateBytes = rows.reduce((sum, r) => sum + 2 * r.template_width * r.template_height, 0);
  const points = new Float32Array(new SharedArrayBuffer(total * 8));
  const descriptors = new Uint8Array(new SharedArrayBuffer(total * DESCRIPTOR_BYTES));
  const templates = new Uint8Array(new SharedArrayBuffer(templateBytes));
  const references: LibraryReference[] = [];
  let offset = 0;
  let templateOffset = 0;
  for (const row of rows) {
    const n = row.n_keypoints;
    const t = 2 * row.template_width * row.template_height;
    // bytea arrives as a Buffer that may not be 4-byte aligned: copy through a fresh Float32Array.
    points.set(new Float32Array(new Uint8Array(row.points.subarray(0, n * 8)).buffer), offset * 2);
    descriptors.set(row.descriptors.subarray(0, n * DESCRIPTOR_BYTES), offset * DESCRIPTOR_BYTES);
    templates.set(row.template.subarray(0, t), templateOffset);
    const [x0 = 0, y0 = 0, x1 = row.width, y1 = row.height] = row.outline;
    references.push({
      id: row.id,
      brandId: row.brand_id,
      width: row.width,
      height: row.height,
      outline: [x0, y0, x1, y1],
      offset,
      count: n,
      template: { offset: templateOffset, width: row.template_width, height: row.template_height },
    });
    offset += n;
    templateOffset += t;
  }
  return { key, references, points, descriptors, templates };
}

class LibraryCache {
  private held: LogoLibrary | null = null;
  private loading: Promise<LogoLibrary> | null = null;
  // Distinguishes this process's copies from another database's in the threads' caches.
  private readonly instance = randomUUID();

  constructor(private readonly db: pg.Pool) {}

  async current(): Promise<LogoLibrary> {
    const version = await libraryVersion(this.db);
    if (this.held?.version === version) return this.held;
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<LogoLibrary> {
    const { version, brands, references } = await loadLibrary(this.db);
    const usable = references.filter((r) => r.extractor === EXTRACTOR && r.n_keypoints > 0);
    const library: LogoLibrary = {
      version,
      brands: new Map(brands.map((b) => [b.id, { id: b.id, name: b.name, nameZh: b.name_zh }])),
      payload: packLibrary(`${this.instance}:${version}`, usable),
    };
    if (!this.held || this.held.version <= version) this.held = library;
    return library;
  }
}

const caches = new WeakMap<pg.Pool, LibraryCache>();

/** The library of the database behind `db` (one cache per connection pool). */
export function logoLibrary(db: pg.Pool): Promise<LogoLibrary> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new LibraryCache(db);
    caches.set(db, cache);
  }
  return cache.current();
}
