/** Search settings from the environment, validated when the domain starts (a bad value stops the process). */
import { z } from 'zod';
import { RERANK } from '../../vision/embedding/rerank-score.js';
import { MAX_QUERY_REGIONS } from '../../vision/embedding/query-regions.js';

const schema = z.object({
  IRIS_SEARCH_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  IRIS_SEARCH_SAVE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  IRIS_SEARCH_INDEX_JOBS: z.coerce.number().int().min(1).max(16).default(2),
  IRIS_SEARCH_INDEX_BATCH: z.coerce.number().int().min(1).max(5000).default(128),
  IRIS_SEARCH_RERANK: z.coerce.number().int().min(0).max(50).default(RERANK.candidates),
  IRIS_SEARCH_REGIONS: z.coerce.number().int().min(0).max(MAX_QUERY_REGIONS).default(MAX_QUERY_REGIONS),
  IRIS_SEARCH_REGIONS_MS: z.coerce.number().int().min(0).max(60_000).default(1500),
  IRIS_INDEX_MEMORY_MB: z.coerce.number().min(1).max(1_048_576).default(2048),
  IRIS_SECOND_PASS_PIXELS_MB: z.coerce.number().int().min(0).max(16_384).default(128),
  IRIS_EVALUATION_TURN_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  IRIS_EVALUATIONS_PER_ACCOUNT: z.coerce.number().int().min(1).max(100).default(2),
});

export interface SearchConfig {
  /** How often each process looks for services to index and for index changes to load. */
  pollMs: number;
  /** A changed in-memory index is written to disk at most this often (and at shutdown). */
  saveMs: number;
  /** Indexing jobs one process runs at once (each for a different service). */
  indexJobs: number;
  /** Record changes per indexing transaction. */
  indexBatch: number;
  /** Best candidates of each query verified by local-feature matching (0: no re-ranking). */
  rerankCandidates: number;
  /** Regions of a query searched when its whole picture's match is not decisive, at most (0: none). */
  maxRegions: number;
  /** A query that has already taken this long skips its regions (0: no limit). */
  regionsBudgetMs: number;
  /** Estimated bytes the loaded search indexes of one process may hold (least recently used evicted past it). */
  indexMemoryBytes: number;
  /** Bytes of pixels kept from first passes for the second passes of the same pictures (0: none kept). */
  secondPassPixelsBytes: number;
  /** A self-evaluation's background turn lasts at most this long before it queues the next one. */
  evaluationTurnMs: number;
  /** Self-evaluations one account may have queued or running at once (one per service in any case). */
  evaluationsPerAccount: number;
}

export function loadSearchConfig(env: NodeJS.ProcessEnv): SearchConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid search configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    pollMs: e.IRIS_SEARCH_POLL_MS,
    saveMs: e.IRIS_SEARCH_SAVE_MS,
    indexJobs: e.IRIS_SEARCH_INDEX_JOBS,
    indexBatch: e.IRIS_SEARCH_INDEX_BATCH,
    indexMemoryBytes: Math.round(e.IRIS_INDEX_MEMORY_MB * 1024 * 1024),
    secondPassPixelsBytes: e.IRIS_SECOND_PASS_PIXELS_MB * 1024 * 1024,
    rerankCandidates: e.IRIS_SEARCH_RERANK,
    maxRegions: e.IRIS_SEARCH_REGIONS,
    regionsBudgetMs: e.IRIS_SEARCH_REGIONS_MS,
    evaluationTurnMs: e.IRIS_EVALUATION_TURN_SECONDS * 1000,
    evaluationsPerAccount: e.IRIS_EVALUATIONS_PER_ACCOUNT,
  };
}
