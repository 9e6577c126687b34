/**
 * The backend's Prometheus metrics (prom-client), one registry per app. Labels stay bounded: route
 * patterns (not URLs), job names, task names, failure kinds, and the region.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ImageDecodeError, ImageFetchError } from '../images/image-errors.js';
import type { BuildInfo } from './build-info.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(region: string, build: BuildInfo) {
  const registry = new Registry();
  registry.setDefaultLabels({ region });
  // Process memory (resident, heap), CPU, event-loop lag and handles.
  collectDefaultMetrics({ register: registry, prefix: 'iris_' });
  new Gauge({ name: 'iris_build_info', help: 'Always 1; the labels say which Iris version, commit and Node version run', labelNames: ['version', 'commit', 'node'], registers: [registry] }).set({ ...build }, 1);
  return {
    registry,
    requests: new Counter({ name: 'iris_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] }),
    requestSeconds: new Histogram({ name: 'iris_http_request_duration_seconds', help: 'HTTP request latency by route and method', labelNames: ['route', 'method'], buckets: SECONDS, registers: [registry] }),
    undeclaredErrors: new Counter({ name: 'iris_undeclared_error_codes_total', help: 'Refusals with an error code their contract operation does not declare (a contract defect)', labelNames: ['operation', 'code'], registers: [registry] }),
    errors: new Counter({ name: 'iris_http_errors_total', help: 'HTTP answers with status >= 400 by route and status', labelNames: ['route', 'status'], registers: [registry] }),
    queueDepth: new Gauge({ name: 'iris_queue_depth', help: 'Jobs waiting (created or retry) per job type', labelNames: ['queue'], registers: [registry] }),
    queueActive: new Gauge({ name: 'iris_queue_active', help: 'Jobs running per job type', labelNames: ['queue'], registers: [registry] }),
    queueAge: new Gauge({ name: 'iris_queue_oldest_age_seconds', help: 'Age of the oldest waiting job per job type', labelNames: ['queue'], registers: [registry] }),
    inferenceWait: new Histogram({ name: 'iris_inference_wait_seconds', help: 'Time a task waited for a worker thread', labelNames: ['task', 'priority'], buckets: SECONDS, registers: [registry] }),
    inferenceRun: new Histogram({ name: 'iris_inference_run_seconds', help: 'Time a task ran on a worker thread', labelNames: ['task', 'outcome'], buckets: SECONDS, registers: [registry] }),
    inferenceThreadNice: new Gauge({ name: 'iris_inference_thread_nice', help: 'Nice value of each inference thread tier relative to the process (first < 0: raised; low: lowered)', labelNames: ['tier'], registers: [registry] }),
    inferenceWaiting: new Gauge({ name: 'iris_inference_waiting', help: 'Tasks waiting for a worker thread', labelNames: ['priority'], registers: [registry] }),
    downloads: new Counter({ name: 'iris_downloads_total', help: 'Image downloads of data sets by outcome (ok, failed, retry) and reason', labelNames: ['outcome', 'reason'], registers: [registry] }),
    indexesLoaded: new Gauge({ name: 'iris_search_indexes_loaded', help: 'Search indexes held in memory', registers: [registry] }),
    indexVectors: new Gauge({ name: 'iris_search_index_vectors', help: 'Vectors per loaded search index', labelNames: ['service'], registers: [registry] }),
    pixelArenaHeld: new Gauge({ name: 'iris_pixel_arena_held_bytes', help: 'Bytes of the shared pixel arena held by pictures kept for their next indexing pass (downloaded, waiting for the first; first pass done, waiting for the second)', registers: [registry] }),
    indexEmbedSources: new Counter({ name: 'iris_search_index_embeds_total', help: 'Indexing embeddings by pass (first, second, whole) and by where the pixels came from (kept: in memory since the download or the first pass; stored: the stored copy decoded)', labelNames: ['pass', 'source'], registers: [registry] }),
    indexLoads: new Counter({ name: 'iris_search_index_loads_total', help: 'Search indexes loaded into memory (from their file or rebuilt)', registers: [registry] }),
    usage: new Counter({ name: 'iris_usage_total', help: 'Usage of all accounts in this region by measure (calls, pictures_analysed, pictures_stored, bytes_stored, inference_seconds, batch_lines); per account: GET /iris/usage', labelNames: ['measure'], registers: [registry] }),
    exportsActive: new Gauge({ name: 'iris_exports_active', help: 'Record exports being streamed now', registers: [registry] }),
    exportRecords: new Counter({ name: 'iris_export_records_total', help: 'Records read by record exports', registers: [registry] }),
    indexEvictions: new Counter({ name: 'iris_search_index_evictions_total', help: 'Search indexes evicted from memory under the index memory budget', registers: [registry] }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A bounded reason for a failed download: the fetcher's failure kind, `undecodable`, or `internal`. */
export function downloadReason(err: unknown): string {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
  if (cause instanceof ImageFetchError) return cause.kind === 'http-status' ? `http-${cause.status ?? 0}` : cause.kind;
  if (cause instanceof ImageDecodeError) return 'undecodable';
  return 'internal';
}
