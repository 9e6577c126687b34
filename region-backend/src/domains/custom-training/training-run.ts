/**
 * The training job of one custom service: pending → preparing (wait for the set's downloads, compute the
 * classifier features of every usable image at background priority, stored in PostgreSQL) → train → running,
 * or failed with the reason.
 *
 * Durable and resumable: every step's result lives in PostgreSQL (features per image, the service's stage), so
 * a run that dies (process killed) is simply started again by any process (see training-supervisor.ts) and
 * skips what is done. One run per service at a time across processes: the run holds a PostgreSQL advisory
 * lock on its own connection, which PostgreSQL releases if the process dies.
 */
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { BlobStore } from '../../images/blob-store.js';
import { InferenceTaskError, type InferencePool } from '../../inference/inference-pool.js';
import type { JobQueue } from '../../plugins/queue.plugin.js';
import { trainClassifier, type LabelledFeatures } from './classifier-training.js';
import { configuredFeatures, featurePayload, type FeaturePipeline } from '../../vision/training/feature-pipeline.js';
import { bytesToFloat32, float32ToBytes } from '../../vision/training/float-bytes.js';
import { Semaphore } from '../downloads/semaphore.js';
import {
  completeCustomService,
  customServiceById,
  failCustomService,
  closeRun,
  openRun,
  recordRunFailure,
  saveLabelCounts,
  updateTrainingProgress,
  UNFINISHED,
  type CustomServiceRow,
} from './custom-service.repo.js';
import type { TrainingConfig } from './training-config.js';
import { featureCoverage, imagesWithoutFeatures, labelDownloads, saveFeatures, trainingRows, usableCounts } from './training-data.repo.js';
import { downloadProblem, labelProblem } from './training-rules.js';

export const TRAIN_JOB = 'custom-training.train';

export interface TrainJobData {
  serviceId: string;
}

/** Advisory-lock namespace of training runs (the second key is hashtext(service id)). */
const LOCK_NAMESPACE = 7_301_300;
/** Feature errors that will not go away by trying again: the image is not usable. */
const PERMANENT_FEATURE_ERRORS = new Set(['image_decode_failed', 'invalid_feature_input']);
/** Unexpected errors in a row after which the service fails instead of being retried. */
const MAX_RUN_FAILURES = 3;
/** Runs that never ended (process killed or hung mid-run) before the service is failed instead of resumed. */
export const MAX_RUN_KILLS = 3;
const FEATURE_BATCH = 64;
const PAGE = 2000;

// Share of `progress` each stage ends at.
const DOWNLOADED = 0.1;
const EMBEDDED = 0.9;

export type RunOutcome = 'busy' | 'gone' | 'waiting' | 'handed-over' | 'interrupted' | 'failed' | 'running';

export interface TrainingRunDeps {
  pool: pg.Pool;
  blobs: BlobStore;
  inference: InferencePool;
  queue: Pick<JobQueue, 'send'>;
  /** Schedules a download turn of a set (so a run never waits on downloads nobody works on). */
  enqueueDownloads: (setId: string) => Promise<void>;
  log: FastifyBaseLogger;
  config: TrainingConfig;
}

class Stop extends Error {
  constructor(readonly outcome: RunOutcome) {
    super(outcome);
  }
}

export class TrainingRunner {
  private closing = false;

  constructor(private readonly deps: TrainingRunDeps) {}

  /** Stops runs between steps (called before the app closes); their services resume elsewhere or at next boot. */
  stop(): void {
    this.closing = true;
  }

  /** Schedules a run now or later; at most one queued job per service. */
  async enqueue(serviceId: string, startAfter?: Date): Promise<void> {
    const data: TrainJobData = { serviceId };
    await this.deps.queue.send(TRAIN_JOB, data, { singletonKey: serviceId, ...(startAfter ? { startAfter } : {}) });
  }

  async run(serviceId: string): Promise<RunOutcome> {
    const lock = await this.deps.pool.connect();
    let broken: Error | undefined;
    try {
      const got = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_NAMESPACE, serviceId]);
      if (!got.rows[0]?.ok) return 'busy';
      try {
        const outcome = await this.runLocked(serviceId);
        if (outcome === 'waiting') await this.enqueue(serviceId, new Date(Date.now() + this.deps.config.waitMs));
        if (outcome === 'handed-over') await this.enqueue(serviceId);
        return outcome;
      } finally {
        await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_NAMESPACE, serviceId]).catch((err: Error) => {
          broken = err;
        });
      }
    } finally {
      // A connection whose unlock failed is dropped, which releases the lock too.
      lock.release(broken);
    }
  }

  private async runLocked(serviceId: string): Promise<RunOutcome> {
    const service = await customServiceById(this.deps.pool, serviceId);
    if (!service || !UNFINISHED.includes(service.status)) return 'gone';
    const kills = await openRun(this.deps.pool, serviceId);
    if (kills >= MAX_RUN_KILLS) {
      this.deps.log.error({ serviceId, kills }, 'training runs keep being killed: service failed');
      await closeRun(this.deps.pool, serviceId);
      return this.fail(serviceId, `training stopped: ${kills} runs were interrupted by a crash or a stuck worker (the training data may hold an image that cannot be processed)`);
    }
    try {
      return await this.prepareAndTrain(service);
    } catch (err) {
      if (err instanceof Stop) return err.outcome;
      if (this.closing) return 'interrupted';
      const failures = await recordRunFailure(this.deps.pool, serviceId);
      this.deps.log.error({ err, serviceId, failures }, 'training run failed');
      if (failures < MAX_RUN_FAILURES) throw err;
      await failCustomService(this.deps.pool, serviceId, `training failed: ${(err as Error).message}`);
      return 'failed';
    } finally {
      await closeRun(this.deps.pool, serviceId);
    }
  }

  private async progress(serviceId: string, stage: 'downloading' | 'embedding' | 'training', progress: number): Promise<void> {
    if (!(await updateTrainingProgress(this.deps.pool, serviceId, stage, progress))) throw new Stop('gone');
    if (this.closing) throw new Stop('interrupted');
  }

  private async fail(serviceId: string, message: string, labelCounts?: Record<string, number>): Promise<RunOutcome> {
    this.deps.log.info({ serviceId, reason: message }, 'custom service cannot be trained');
    return (await failCustomService(this.deps.pool, serviceId, message, labelCounts)) ? 'failed' : 'gone';
  }

  private async prepareAndTrain(service: CustomServiceRow): Promise<RunOutcome> {
    const { pool, config } = this.deps;
    const started = Date.now();
    const setId = service.training_set_id;

    const labels = await labelDownloads(pool, setId);
    const items = labels.reduce((sum, l) => sum + l.items, 0);
    const unfinished = labels.reduce((sum, l) => sum + l.unfinished, 0);
    if (unfinished > 0) {
      await this.progress(service.id, 'downloading', (DOWNLOADED * (items - unfinished)) / items);
      if (service.stage !== 'downloading') await this.deps.enqueueDownloads(setId);
      return 'waiting';
    }
    const downloadIssue = downloadProblem(labels, config);
    if (downloadIssue) return this.fail(service.id, downloadIssue, Object.fromEntries(labels.map((l) => [l.label, l.downloaded])));

    await this.progress(service.id, 'embedding', DOWNLOADED);
    // The built-in backbone's features, or the configured ONNX image embedder's (training/feature-pipeline.ts).
    const features = await configuredFeatures();
    if (!(await this.computeFeatures(service.id, setId, started, features))) return 'handed-over';

    const usable = await usableCounts(pool, setId, features.pipeline);
    const labelCounts = Object.fromEntries(labels.map((l) => [l.label, usable.get(l.label) ?? 0]));
    await saveLabelCounts(pool, service.id, labelCounts);
    const labelIssue = labelProblem(new Map(Object.entries(labelCounts)), config);
    if (labelIssue) return this.fail(service.id, labelIssue, labelCounts);

    await this.progress(service.id, 'training', EMBEDDED);
    const rows = await this.loadRows(setId, features);
    const { labels: classes, result } = await trainClassifier(this.deps.inference, rows, { seed: config.seed, priority: 'background' });
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const stored = await completeCustomService(
        client,
        service.id,
        {
          feature_pipeline: features.pipeline,
          labels: classes,
          dim: result.model.dim,
          mean: float32ToBytes(result.model.mean),
          scale: float32ToBytes(result.model.scale),
          weights: float32ToBytes(result.model.weights),
          bias: float32ToBytes(result.model.bias),
          report: {
            validation_accuracy: result.validationAccuracy,
            validation_loss: result.validationLoss,
            train_images: result.trainImages,
            validation_images: result.validationImages,
            l2: result.l2,
            epochs: result.epochs,
            grid: result.grid,
            per_label: Object.fromEntries(classes.map((label, i) => [label, result.perClass[i]])),
          },
        },
        { validationAccuracy: result.validationAccuracy, labelCounts, confusion: result.confusion && { labels: classes, counts: result.confusion } },
      );
      await client.query('COMMIT');
      if (!stored) return 'gone';
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    this.deps.log.info({ serviceId: service.id, images: rows.length, labels: classes.length, accuracy: result.validationAccuracy }, 'custom service trained');
    return 'running';
  }

  /**
   * Computes the missing features of the set's images, batch by batch; false when the run's time budget ran
   * out first (a fresh job continues). Images missing from the blob store are left out of this run.
   */
  private async computeFeatures(serviceId: string, setId: string, started: number, pipeline: FeaturePipeline): Promise<boolean> {
    const { pool, blobs, inference, log, config } = this.deps;
    const skipped = new Set<string>();
    const gate = new Semaphore(Math.max(2, inference.size * 8)); // enough in flight for the pool to batch
    for (;;) {
      const keys = (await imagesWithoutFeatures(pool, setId, pipeline.pipeline, FEATURE_BATCH + skipped.size)).filter((k) => !skipped.has(k));
      if (!keys.length) return true;
      await Promise.all(
        keys.slice(0, FEATURE_BATCH).map(async (key) => {
          const release = await gate.acquire();
          try {
            if (this.closing) return;
            const bytes = await blobs.get(key);
            if (!bytes) {
              log.warn({ serviceId, blobKey: key }, 'stored image missing: left out of training');
              skipped.add(key);
              return;
            }
            try {
              const { features } = await inference.run('classifier-features', { image: bytes, ...featurePayload(pipeline) }, { priority: 'background' });
              if (features.length !== pipeline.dim) throw new Error(`classifier features have ${features.length} values, expected ${pipeline.dim}`);
              await saveFeatures(pool, key, pipeline.pipeline, { features: float32ToBytes(features) });
            } catch (err) {
              if (!(err instanceof InferenceTaskError && err.code && PERMANENT_FEATURE_ERRORS.has(err.code))) throw err;
              await saveFeatures(pool, key, pipeline.pipeline, { error: err.message });
            }
          } finally {
            release();
          }
        }),
      );
      const coverage = await featureCoverage(pool, setId, pipeline.pipeline);
      await this.progress(serviceId, 'embedding', DOWNLOADED + ((EMBEDDED - DOWNLOADED) * coverage.done) / Math.max(1, coverage.images));
      if (Date.now() - started > config.runBudgetMs) return false;
    }
  }

  private async loadRows(setId: string, features: FeaturePipeline): Promise<LabelledFeatures[]> {
    const rows: LabelledFeatures[] = [];
    let afterId = 0;
    for (;;) {
      const page = await trainingRows(this.deps.pool, setId, features.pipeline, afterId, PAGE);
      for (const row of page) rows.push({ label: row.label, features: bytesToFloat32(row.features, features.dim) });
      if (page.length < PAGE) return rows;
      afterId = page[page.length - 1]!.id;
    }
  }
}
