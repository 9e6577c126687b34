/**
 * The background work of a self-evaluation (pg-boss job `search-evaluation`, one turn at a time): draws the
 * sample once, then for each sampled record makes every edit of its stored picture and searches with it through
 * the customers' search path (embedding, index, re-ranking), at background priority. Each record's outcomes are
 * committed together, so a process killed at any moment resumes at the next record; a turn that runs out of
 * time queues the next one, which lets other jobs take turns.
 */
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import sharp from 'sharp';
import { ApiError } from '@iris/shared';
import type { BlobStore } from '../../images/blob-store.js';
import { makeSearchQuery, type SearchEdit } from '../../images/query-edits.js';
import type { JobQueue } from '../../plugins/queue.plugin.js';
import type { Selected } from '../search/search-rerank.js';
import { findServiceState } from '../search-services/search-service.repo.js';
import {
  appendOutcomes,
  blobKeysOf,
  evaluationById,
  finishEvaluation,
  recordBlob,
  sampleRecords,
  startEvaluation,
  unfinishedEvaluations,
  type EvaluationRow,
  type Outcome,
} from './evaluation.repo.js';

export const EVALUATION_JOB = 'search-evaluation';
export interface EvaluationJobData {
  evaluationId: string;
}

/** Results looked at per query (recall@10). */
const DEPTH = 10;
const MAX_SOURCE_PIXELS = 40_000_000;

export interface EvaluationRunnerDeps {
  pool: pg.Pool;
  queue: JobQueue;
  blobs: BlobStore;
  log: FastifyBaseLogger;
  /** The customers' ranked search (on a background-priority view of the inference pool). */
  rank: (accountId: number, serviceId: string, bytes: Uint8Array, count: number) => Promise<Selected[]>;
  /** Longest a turn runs before it hands over to the next one. */
  turnMs: number;
}

export class EvaluationRunner {
  private closed = false;

  constructor(private readonly deps: EvaluationRunnerDeps) {}

  async enqueue(evaluationId: string): Promise<void> {
    await this.deps.queue.send(EVALUATION_JOB, { evaluationId } satisfies EvaluationJobData, { singletonKey: evaluationId });
  }

  /** Boot-time recovery: every queued or running evaluation gets a turn (its job may have died with a process). */
  async recover(): Promise<number> {
    const ids = await unfinishedEvaluations(this.deps.pool);
    for (const id of ids) await this.enqueue(id);
    return ids.length;
  }

  close(): void {
    this.closed = true;
  }

  /** One turn (the job handler). */
  async runTurn(evaluationId: string): Promise<void> {
    let row = await evaluationById(this.deps.pool, evaluationId);
    if (!row || row.state === 'done' || row.state === 'failed') return;
    if (this.closed) return this.handOver(evaluationId);
    try {
      await this.work(row);
    } catch (err) {
      row = await evaluationById(this.deps.pool, evaluationId);
      if (this.closed) return this.handOver(evaluationId);
      this.deps.log.warn({ err, evaluation: evaluationId }, 'search evaluation failed');
      const message = err instanceof ApiError && err.code === 2002 ? 'the search service was deleted' : `evaluation failed: ${(err as Error).message}`;
      if (row) await finishEvaluation(this.deps.pool, evaluationId, 'failed', message.slice(0, 500));
    }
  }

  private async work(initial: EvaluationRow): Promise<void> {
    const { pool } = this.deps;
    const service = await findServiceState(pool, initial.account_id, initial.service_id);
    if (!service) return finishEvaluation(pool, initial.id, 'failed', 'the search service was deleted');
    let row: EvaluationRow | null = initial;
    if (row.state === 'queued') {
      await startEvaluation(pool, row.id, await sampleRecords(pool, service.id, row.id, row.sample_size));
      row = await evaluationById(pool, row.id);
      if (!row || row.state !== 'running') return;
    }
    const deadline = performance.now() + this.deps.turnMs;
    const total = row.record_ids.length * row.edits.length;
    let answered = row.outcomes.length;
    while (answered < total) {
      if (this.closed || performance.now() > deadline) return this.handOver(row.id);
      const recordIndex = Math.floor(answered / row.edits.length);
      const outcomes = await this.queryRecord(row, service.set_id, row.record_ids[recordIndex]!, row.edits.slice(answered % row.edits.length));
      if (!(await appendOutcomes(pool, row.id, answered, outcomes))) return; // another run moved it on, or it ended
      answered += outcomes.length;
    }
    await finishEvaluation(pool, row.id, 'done');
    this.deps.log.info({ evaluation: row.id, serviceId: service.id, queries: total }, 'search evaluation done');
  }

  /** Every edit of one record's picture, searched; the rank of the record (or a byte-identical copy of it) in each answer. */
  private async queryRecord(row: EvaluationRow, setId: string, recordId: number, edits: string[]): Promise<Outcome[]> {
    const skipped = edits.map((e) => ({ e, r: -1, ms: 0 }));
    const blobKey = await recordBlob(this.deps.pool, setId, recordId);
    const bytes = blobKey ? await this.deps.blobs.get(blobKey) : null;
    if (!blobKey || !bytes) return skipped;
    const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const meta = await sharp(source, { limitInputPixels: MAX_SOURCE_PIXELS }).metadata().catch(() => null);
    if (!meta?.width || !meta.height) return skipped;
    const photo = { png: source, width: meta.width, height: meta.height };
    const outcomes: Outcome[] = [];
    for (const edit of edits) {
      const query = await makeSearchQuery(photo, edit as SearchEdit, `${row.id}/${recordId}`);
      const started = performance.now();
      let ranked: Selected[];
      try {
        ranked = await this.deps.rank(row.account_id, row.service_id, query, DEPTH);
      } catch (err) {
        // An edit the search refuses (too small to decode, say) is a miss, not a failed evaluation.
        if (err instanceof ApiError && err.code === 5001) {
          outcomes.push({ e: edit, r: 0, ms: Math.round(performance.now() - started) });
          continue;
        }
        throw err;
      }
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const keys = await blobKeysOf(this.deps.pool, ranked.map((s) => s.hit.id));
      const at = ranked.findIndex((s) => s.hit.id === recordId || keys.get(s.hit.id) === blobKey);
      outcomes.push({ e: edit, r: at + 1, ms });
    }
    return outcomes;
  }

  private async handOver(evaluationId: string): Promise<void> {
    await this.enqueue(evaluationId).catch((err: unknown) => this.deps.log.warn({ err, evaluation: evaluationId }, 'could not queue the next evaluation turn'));
  }
}
