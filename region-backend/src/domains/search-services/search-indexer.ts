/**
 * The indexing job of one search service: applies the set's record changes since the service's
 * `source_seq` to its items (embedding new images once, from the blob store, at background priority),
 * batch by batch, each batch one transaction. No rebuild: only changed records are touched.
 *
 * One run per service at a time across all processes: the run holds a PostgreSQL advisory lock for the
 * service on its own connection (released by PostgreSQL if the process dies); a second run finding the
 * lock taken returns at once, and the pollers enqueue again while the service is behind.
 */
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { BlobStore } from '../../images/blob-store.js';
import type { RecentPixels } from '../../images/recent-pixels.js';
import type { RgbImage } from '../../images/rgb-image.js';
import { InferenceTaskError, type InferencePool } from '../../inference/inference-pool.js';
import { listRecordChanges, type RecordChange } from '../data-sets/index.js';
import { downloadsDue } from '../downloads/download.repo.js';
import { Semaphore } from '../downloads/semaphore.js';
import type { EmbedderRegistry } from './embedder-registry.js';
import { cancelRebuild, keysMissingUnder, startRebuild, switchPipeline, updateRebuildProgress } from './embedder-rebuild.repo.js';
import { bytesToVector, vectorToBytes } from './embedding-pipeline.js';
import {
  applyItemBatch,
  completeEmbedding,
  completeEmbeddings,
  embeddingPasses,
  firstPassItems,
  insertEmbeddings,
  markCaughtUp,
  orphanedItems,
  purgeItemTombstones,
  restartUnderPipeline,
  takeCompletedItems,
  type EmbeddingPasses,
  type ItemUpsert,
} from './index-items.repo.js';
import { NO_LOCAL_FEATURES } from '../../vision/embedding/local-features.js';
import type { IndexEmbedding, IndexEmbedRequest, IndexPass } from '../../vision/embedding/search-embedding.js';
import { MAX_WORKING_SIDE } from '../../vision/embedding/image-views.js';
import { serviceState, type ServiceState } from './search-service.repo.js';


export const INDEX_JOB = 'search.index-service';

export interface IndexJobData {
  serviceId: string;
}

/** Advisory-lock namespace of indexing runs (the second key is hashtext(service id)). */
const LOCK_NAMESPACE = 7_301_200;
const DAY_MS = 86_400_000;
/** Item tombstones are kept this long for processes catching up; an older copy is rebuilt instead. */
const ITEM_TOMBSTONE_MS = DAY_MS;
/** Record tombstones of the data sets are purged after 7 days: a service away longer checks for orphans. */
const RECONCILE_AFTER_MS = 6 * DAY_MS;
/** Embedding errors that will not go away by trying again: the record is left out of the index. */
const PERMANENT_EMBED_ERRORS = new Set(['image_decode_failed', 'invalid_embed_input']);
/** An image whose embedding killed the worker thread this often is left out (it would block its service forever). */
const MAX_WORKER_CRASHES = 3;

export interface IndexerOptions {
  /** Record changes read and committed per batch. */
  batchSize: number;
  /** A run stops after this long (the next poll continues), so one big set does not hold a job slot for hours. */
  maxRunMs: number;
  /** Embeddings in flight at once per run (keep every inference thread busy). */
  embedConcurrency: number;
  /** Items of a service whose second pass runs between two looks for new records. */
  secondPassBatch: number;
  /**
   * While the set is still downloading, second passes wait (the cores go to downloads and first passes, so
   * every image is searchable sooner), except for one batch this often, so they never starve.
   */
  secondPassEveryMs: number;
}

export interface IndexerDeps {
  pool: pg.Pool;
  blobs: BlobStore;
  inference: InferencePool;
  log: FastifyBaseLogger;
  embedders: EmbedderRegistry;
  /** Pixels of pictures this process just stored: a first pass starts from them instead of decoding the stored copy. */
  recentPixels?: RecentPixels;
  /**
   * Pixels of pictures whose first pass just ran in this process, kept for their second pass (which then need
   * not read and decode the stored copy); bounded like `recentPixels`, and optional in the same way.
   */
  secondPassPixels?: RecentPixels;
  /** Counts each embedding by pass and by where its pixels came from (kept in memory, or the stored copy decoded). */
  observeSource?: (pass: IndexPass, source: 'kept' | 'stored') => void;
}

export interface RunSummary {
  ran: boolean;
  batches: number;
  changed: number;
  skipped: number;
}

export class SearchIndexer {
  private closing = false;
  /** Worker-thread crashes per image, in this process. */
  private readonly crashes = new Map<string, number>();
  /** When each service last ran a batch of second passes, in this process. */
  private readonly secondPassAt = new Map<string, number>();
  private readonly options: IndexerOptions;

  constructor(
    private readonly deps: IndexerDeps,
    options: Partial<IndexerOptions> = {},
  ) {
    this.options = {
      batchSize: 128,
      maxRunMs: 10 * 60_000,
      embedConcurrency: Math.max(2, deps.inference.size * 8) /* enough in flight for the pool to batch */,
      secondPassBatch: 32,
      secondPassEveryMs: 10_000,
      ...options,
    };
  }

  /** Stops runs between batches (called before the app closes). */
  stop(): void {
    this.closing = true;
  }

  async run(serviceId: string): Promise<RunSummary> {
    const summary: RunSummary = { ran: false, batches: 0, changed: 0, skipped: 0 };
    const lock = await this.deps.pool.connect();
    let broken: Error | undefined;
    try {
      const got = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_NAMESPACE, serviceId]);
      if (!got.rows[0]?.ok) return summary;
      summary.ran = true;
      try {
        await this.catchUp(serviceId, summary);
      } catch (err) {
        if (!this.closing) throw err;
      } finally {
        await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_NAMESPACE, serviceId]).catch((err: Error) => {
          broken = err;
        });
      }
      return summary;
    } finally {
      // A connection whose unlock failed is dropped, which releases the lock too.
      lock.release(broken);
    }
  }

  private async catchUp(serviceId: string, summary: RunSummary): Promise<void> {
    const started = Date.now();
    let first = true;
    /** Rebuild cursor of this run: each image is tried once per run (one that cannot be embedded is left out). */
    let rebuiltUpTo = '';
    while (!this.closing && Date.now() - started < this.options.maxRunMs) {
      const service = await serviceState(this.deps.pool, serviceId);
      if (!service) return;
      const pipeline = await this.deps.embedders.pipelineOf(service.scenario);
      if (service.pipeline !== pipeline) {
        if (service.n_indexed === 0) {
          this.deps.log.info({ serviceId, from: service.pipeline, to: pipeline }, 'embedding pipeline changed: indexing the set again');
          await restartUnderPipeline(this.deps.pool, serviceId, pipeline);
          continue;
        }
        if (service.next_pipeline !== pipeline) {
          // The index keeps serving under its pipeline while every item is embedded again under the new one.
          this.deps.log.info({ serviceId, from: service.pipeline, to: pipeline }, 'embedder changed: rebuilding the index in the background');
          await startRebuild(this.deps.pool, serviceId, pipeline);
          rebuiltUpTo = '';
          continue;
        }
      } else if (service.next_pipeline) {
        await cancelRebuild(this.deps.pool, serviceId);
        continue;
      }
      if (first && service.caught_up_at && Date.now() - service.caught_up_at.getTime() > RECONCILE_AFTER_MS) await this.removeOrphans(service);
      first = false;
      const changes = await listRecordChanges(this.deps.pool, service.set_id, service.source_seq, this.options.batchSize);
      if (!changes.length) {
        // New records first; then second passes (a few at a time, so new records never wait long); then a rebuild.
        // While the set downloads, the run ends here instead and the poller starts the next one for new records.
        const due = Date.now() - (this.secondPassAt.get(serviceId) ?? 0) >= this.options.secondPassEveryMs || !(await downloadsDue(this.deps.pool, service.set_id));
        if (due && (await this.secondPassStep(service, summary))) {
          this.secondPassAt.set(serviceId, Date.now());
          continue;
        }
        if (service.next_pipeline) {
          rebuiltUpTo = await this.rebuildStep(service, rebuiltUpTo, summary);
          continue;
        }
        await markCaughtUp(this.deps.pool, serviceId);
        this.deps.secondPassPixels?.dropExpired();
        await purgeItemTombstones(this.deps.pool, serviceId, new Date(Date.now() - ITEM_TOMBSTONE_MS));
        return;
      }
      const upserts = await this.upsertsOf(changes, service, summary);
      const kept = new Set(upserts.map((u) => u.record_id));
      const result = await applyItemBatch(this.deps.pool, {
        serviceId,
        fromSourceSeq: service.source_seq,
        toSourceSeq: changes[changes.length - 1]!.change_seq,
        upserts,
        removals: changes.filter((c) => !kept.has(c.id)).map((c) => c.id),
      });
      summary.batches++;
      summary.changed += result.changed;
    }
  }

  /**
   * One batch of a background rebuild: embeds live items' images under the next pipeline, after `cursor`;
   * when none is left, switches the service to it. Answers the new cursor ('' after the switch).
   */
  private async rebuildStep(service: ServiceState, cursor: string, summary: RunSummary): Promise<string> {
    const next = service.next_pipeline!;
    const keys = await keysMissingUnder(this.deps.pool, service.id, next, cursor, this.options.batchSize);
    if (keys.length) {
      await this.ensureEmbeddings(keys, service, next, 'whole');
      await updateRebuildProgress(this.deps.pool, service.id, next);
      summary.batches++;
      return keys[keys.length - 1]!;
    }
    if (await switchPipeline(this.deps.pool, service.id, next)) {
      this.deps.log.info({ serviceId: service.id, from: service.pipeline, to: next }, 'index rebuilt under the new embedder: switched');
    }
    return '';
  }

  /** Index entries for the live downloaded records of a batch (embedding the images not embedded yet). */
  private async upsertsOf(changes: RecordChange[], service: ServiceState, summary: RunSummary): Promise<ItemUpsert[]> {
    const live = changes.filter((c) => !c.deleted && c.status === 'downloaded' && c.blob_key);
    const keys = [...new Set(live.map((c) => c.blob_key!))];
    // A first pass makes new images searchable soon; their second pass runs once the set's changes are applied.
    const embedded = await this.ensureEmbeddings(keys, service, service.pipeline, 'first');
    // During a rebuild, new images are embedded for the index being built too. A failure there (a new model
    // that does not run) must not hold back the index that serves: the rebuild step retries those images.
    if (service.next_pipeline) {
      await this.ensureEmbeddings(keys, service, service.next_pipeline, 'whole').catch((err: unknown) => {
        if (this.closing) throw err;
        this.deps.log.warn({ serviceId: service.id, err }, 'embedding new images for the index being rebuilt failed: the rebuild retries them');
      });
    }
    const upserts: ItemUpsert[] = [];
    for (const c of live) {
      const passes = embedded.get(c.blob_key!);
      if (passes) upserts.push({ record_id: c.id, blob_key: c.blob_key!, tags: c.tags, price: c.price, keywords: c.keywords, first_pass_only: passes === 'first' });
      else summary.skipped++;
    }
    return upserts;
  }

  /**
   * Embeds the images not embedded yet under the pipeline: `first` makes a first pass (docs/search.md, "Two
   * passes"), `whole` both at once. Answers every key that has an embedding afterwards, with its passes.
   */
  private async ensureEmbeddings(keys: string[], service: ServiceState, pipeline: string, pass: 'first' | 'whole'): Promise<Map<string, EmbeddingPasses>> {
    const embedder = await this.deps.embedders.embedderOf(pipeline);
    const have = await embeddingPasses(this.deps.pool, pipeline, keys);
    const table = pass === 'first' ? this.deps.secondPassPixels : undefined;
    await this.eachImage(keys.filter((key) => !have.has(key)), service, pipeline, {
      // Pixels are asked for only while the table has room (answering them costs a copy on the inference thread),
      // and not when the pass reads them from shared memory: this process has them already.
      payloadOf: (_key, shared) => ({ pass, ...(!shared && table?.hasRoom() ? { keepPixels: true } : {}) }),
      ...(pass === 'first' && this.deps.recentPixels ? { pixelsFrom: this.deps.recentPixels } : {}),
      ...(table ? { keepPixels: (key: string, pixels: RgbImage) => void table.put(key, pixels) } : {}),
      store: async (embedded) => {
        await insertEmbeddings(
          this.deps.pool,
          pipeline,
          embedded.map(({ key, result }) => ({
            blobKey: key,
            vector: vectorToBytes(result.vector, embedder.dim),
            features: result.features,
            viewSum: result.viewSum && vectorToBytes(result.viewSum, result.viewSum.length),
          })),
        );
        for (const { key, result } of embedded) have.set(key, result.features ? 'complete' : 'first');
      },
      // The record is left out of the index.
      leaveOut: async () => {},
    });
    return have;
  }

  /**
   * One batch of second passes: completes the embeddings of the service's first-pass items (those another
   * service has not completed already) and takes the completed vectors into the index. False when none is left.
   */
  private async secondPassStep(service: ServiceState, summary: RunSummary): Promise<boolean> {
    const { pool } = this.deps;
    const items = await firstPassItems(pool, service.id, service.pipeline, this.options.secondPassBatch);
    if (!items.length) return false;
    const embedder = await this.deps.embedders.embedderOf(service.pipeline);
    const viewSums = new Map(items.filter((i) => !i.complete && i.view_sum).map((i) => [i.blob_key, bytesToVector(i.view_sum!, i.view_sum!.length / 4)]));
    // A first pass without its view sum cannot be completed: it keeps its vector, without keypoints.
    for (const item of items) if (!item.complete && !item.view_sum) await completeEmbedding(pool, item.blob_key, service.pipeline, null, NO_LOCAL_FEATURES);
    await this.eachImage([...viewSums.keys()], service, service.pipeline, {
      payloadOf: (key) => ({ pass: 'second', viewSum: viewSums.get(key)! }),
      ...(this.deps.secondPassPixels ? { pixelsFrom: this.deps.secondPassPixels } : {}),
      store: (embedded) =>
        completeEmbeddings(
          pool,
          service.pipeline,
          embedded.map(({ key, result }) => ({ blobKey: key, vector: vectorToBytes(result.vector, embedder.dim), features: result.features ?? NO_LOCAL_FEATURES })),
        ),
      // Searchable already: the image keeps its first-pass vector, without keypoints to re-rank by.
      leaveOut: (key) => completeEmbedding(pool, key, service.pipeline, null, NO_LOCAL_FEATURES),
    });
    await takeCompletedItems(pool, service.id, items);
    summary.batches++;
    return true;
  }

  /**
   * Runs `search-index-embed` on each stored image (at background priority, `embedConcurrency` at a time) and
   * stores the results together, in one statement once all have answered (a picture is searchable only when
   * its batch is applied, so storing earlier gains nothing). An image that is missing or cannot be embedded
   * for good is left out (`leaveOut`); any other error stops the batch, which the next run tries again, after
   * the results that came are stored.
   */
  private async eachImage(
    keys: string[],
    service: ServiceState,
    pipeline: string,
    how: {
      /** `shared`: the pass reads the picture's pixels from shared memory (a pixel arena's slot). */
      payloadOf: (key: string, shared: boolean) => Pick<IndexEmbedRequest, 'pass' | 'viewSum' | 'keepPixels'>;
      store: (embedded: { key: string; result: IndexEmbedding }[]) => Promise<void>;
      leaveOut: (key: string) => Promise<void>;
      /**
       * The table holding the pictures' pixels when this process still has them (otherwise the stored copy is
       * read and decoded): taken from it, they go back to it once the pass is over, unless handed to `keepPixels`.
       */
      pixelsFrom?: RecentPixels;
      /** Takes the pixels a successful pass ran on (answered by it, or the shared ones it was given) for the next pass. */
      keepPixels?: (key: string, pixels: RgbImage) => void;
    },
  ): Promise<void> {
    const { blobs, inference, log } = this.deps;
    const embedder = await this.deps.embedders.embedderOf(pipeline);
    const gate = new Semaphore(this.options.embedConcurrency);
    const embedded: { key: string; result: IndexEmbedding }[] = [];
    const outcomes = await Promise.allSettled(
      keys.map(async (key) => {
        const release = await gate.acquire();
        const pixels = how.pixelsFrom && this.keptPixels(how.pixelsFrom, key);
        // Held until the pass is over: the inference thread reads shared pixels in place.
        let held = pixels;
        try {
          const bytes = pixels ? null : await blobs.get(key);
          if (!pixels && !bytes) {
            log.warn({ serviceId: service.id, blobKey: key }, 'stored image missing: left out of the index');
            return await how.leaveOut(key);
          }
          const shared = pixels?.data.buffer instanceof SharedArrayBuffer;
          const image = pixels ? { rgb: pixels } : { image: bytes! };
          const payload = { ...image, scenario: service.scenario, ...how.payloadOf(key, shared), ...(embedder.manifestPath ? { embedder } : {}) };
          this.deps.observeSource?.(payload.pass ?? 'whole', pixels ? 'kept' : 'stored');
          // Pixels of plain memory move to the inference thread instead of being copied; shared ones are read in place.
          const transfer = pixels && pixels.data.byteLength === pixels.data.buffer.byteLength && pixels.data.buffer instanceof ArrayBuffer ? [pixels.data.buffer] : [];
          const { rgb, ...result } = await inference.run('search-index-embed', payload, { priority: 'background', transfer });
          // Kept at once, not with the batch's results (0.9 MB per 640×480 picture): pixels are the blob's whatever becomes of this run.
          const next = rgb ?? (shared ? pixels : undefined);
          if (next && how.keepPixels) {
            if (next === held) held = undefined;
            how.keepPixels(key, next);
          }
          embedded.push({ key, result });
        } catch (err) {
          if (this.closing) throw err;
          if (err instanceof InferenceTaskError) {
            // A task error other than a bad image (say, a model file missing) is retried until it is fixed.
            if (!err.code || !PERMANENT_EMBED_ERRORS.has(err.code)) throw err;
            log.warn({ serviceId: service.id, blobKey: key, err: err.message }, 'stored image cannot be embedded: left out of the index');
            return await how.leaveOut(key);
          }
          const crashes = (this.crashes.get(key) ?? 0) + 1;
          this.crashes.set(key, crashes);
          if (crashes < MAX_WORKER_CRASHES) throw err;
          log.error({ serviceId: service.id, blobKey: key, err }, 'embedding this stored image keeps failing: left out of the index');
          await how.leaveOut(key);
        } finally {
          if (held) how.pixelsFrom?.release(held);
          release();
        }
      }),
    );
    if (embedded.length) await how.store(embedded);
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * The pixels a table kept of the picture (when it was stored, or at its first pass), if this process still has
   * them and the embedder would take them as they are: decoding the stored copy gives exactly these pixels
   * (images/image-decoder.ts; a first pass answers the pixels it decoded or was given).
   */
  private keptPixels(table: RecentPixels, key: string): RgbImage | undefined {
    const pixels = table.take(key);
    if (!pixels || Math.max(pixels.width, pixels.height) <= MAX_WORKING_SIDE) return pixels;
    table.release(pixels);
    return undefined;
  }

  /** Removes items whose records were purged while this service was not being indexed. */
  private async removeOrphans(service: ServiceState): Promise<void> {
    const orphans = await orphanedItems(this.deps.pool, service.id);
    if (!orphans.length) return;
    this.deps.log.warn({ serviceId: service.id, orphans: orphans.length }, 'removing index items of purged records');
    await applyItemBatch(this.deps.pool, {
      serviceId: service.id,
      fromSourceSeq: service.source_seq,
      toSourceSeq: service.source_seq,
      upserts: [],
      removals: orphans,
    });
  }
}
