/**
 * The stored keypoints of one query's search candidates, read from PostgreSQL once per record and as soon as the
 * index names the candidates: while their records are read, not after them. The whole query's re-ranking and its
 * regions share one reader, so a record both verify is read once.
 */
import type { Queryable } from '../data-sets/set.repo.js';
import { itemFeatures } from '../search-services/index-items.repo.js';

export class CandidateFeatures {
  private readonly stored = new Map<number, Uint8Array>();
  private readonly reading = new Map<number, Promise<void>>();

  constructor(
    private readonly db: Queryable,
    private readonly service: { id: string; pipeline: string },
  ) {}

  /** Resolves once the keypoints of every id are read (those not yet asked for are read now). */
  read(ids: readonly number[]): Promise<unknown> {
    const missing = [...new Set(ids)].filter((id) => !this.reading.has(id));
    if (missing.length) {
      const done = itemFeatures(this.db, this.service.id, this.service.pipeline, missing).then((found) => {
        for (const [id, features] of found) this.stored.set(id, features);
      });
      // Awaited through `reading`; a failure is not left unhandled when no one waits for these ids.
      done.catch(() => undefined);
      for (const id of missing) this.reading.set(id, done);
    }
    return Promise.all(ids.map((id) => this.reading.get(id)));
  }

  /** Starts reading without waiting: a failure reaches whoever reads the ids later. */
  prefetch(ids: readonly number[]): void {
    this.read(ids).catch(() => undefined);
  }

  /** The record's packed keypoints once read; undefined when it has none stored (or they are not read yet). */
  get(id: number): Uint8Array | undefined {
    return this.stored.get(id);
  }
}
