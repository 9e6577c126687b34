/**
 * Which services a batch task can run: the ready-made analysis services this region offers (registered
 * handlers whose catalogue entry lists the region, optionally narrowed by IRIS_BATCH_SERVICES), plus the
 * account's running custom classifiers (`CustomClassifierSource`). Every service runs one image in and
 * answers its full response envelope.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError, serviceById, type Lang } from '@iris/shared';
import { analysisHandler, registeredAnalysisServices, type AnyAnalysisHandler, type Envelope } from '../analysis/analysis-registry.js';
import { registerAllAnalysisServices } from '../analysis/services.js';
import { parseLoc } from '../../images/image-decoder.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import { analysisError, type ImageProblem } from '../analysis/analysis-errors.js';
import { runAnalysis } from '../analysis/analysis.routes.js';
import { findService } from '../search-services/search-service.repo.js';

export interface BatchRunInput {
  bytes: Uint8Array;
  downloadMs: number;
  params: Record<string, string>;
  lang: Lang;
  requestId: string;
  startedAt: number;
  /** The pool to run model code on (batch passes a background-priority view). */
  pool: InferencePool;
}

export interface BatchService {
  id: string;
  /** Envelope family, for the error codes of a failed line (detect-like codes or colour/fashion 400/408). */
  envelope: Envelope;
  /** Parameters the service needs when prepare gives none (colour: granularity=major, return_type=basic). */
  defaults: Record<string, string>;
  /** Throws ApiError for parameters the service refuses. */
  validate(params: Record<string, string>): void;
  run(input: BatchRunInput): Promise<Record<string, unknown>>;
}

/** What batch needs from custom training (custom-classifiers.ts provides it). */
export interface CustomClassifierSource {
  /** Ids of the account's custom classifier services whose status is running. */
  running(accountId: number): Promise<string[]>;
  /** `running`, `unusable` (pending, preparing, failed) or null when the account has no such service (or deleted it). */
  status(accountId: number, serviceId: string): Promise<'running' | 'unusable' | null>;
  /** Throws ApiError for parameters the classifier refuses (`topk`). */
  validate(params: Record<string, string>): void;
  /** Classifies one image with the account's service; answers the classifier's full envelope. */
  classify(accountId: number, serviceId: string, input: BatchRunInput): Promise<Record<string, unknown>>;
}

/** Thrown by a service that stopped existing (or running) while its task ran: the task ends in FAILURE. */
export class ServiceGoneError extends Error {
  override readonly name = 'ServiceGoneError';
}

export type Resolution = { ok: true; service: BatchService } | { ok: false; error: ApiError };

/** Fixed ids of the API's other families: they exist, but are not analysis services. */
const OTHER_API_IDS = new Set(['_0000014', '_0000172', '_0000178', '_0000194', '_0000204', '_1000001']);

const COLOR_DEFAULTS = { granularity: 'major', return_type: 'basic' };

function readyMade(app: FastifyInstance, handler: AnyAnalysisHandler): BatchService {
  return {
    id: handler.serviceId,
    envelope: handler.envelope,
    defaults: handler.envelope === 'color' ? COLOR_DEFAULTS : {},
    validate: (params) => {
      handler.validate?.(params);
      if (params.loc?.trim()) parseLoc(params.loc);
    },
    run: (input) => runAnalysis(app, handler, input),
  };
}

function custom(source: CustomClassifierSource, accountId: number, id: string): BatchService {
  return {
    id,
    envelope: 'classify',
    defaults: {},
    validate: (params) => source.validate(params),
    run: (input) => source.classify(accountId, id, input),
  };
}

export class BatchServices {
  constructor(
    private readonly app: FastifyInstance,
    private readonly allowed: ReadonlySet<string> | null,
    private readonly custom: CustomClassifierSource | null,
  ) {
    registerAllAnalysisServices();
  }

  /** Ready-made services offered for batch in this region. */
  readyMadeIds(): string[] {
    return registeredAnalysisServices().filter((id) => this.offered(id));
  }

  /** What the account may run: the ready-made services offered here that it is `granted` (the edge's signed list), and its classifiers. */
  async list(accountId: number, granted: readonly string[]): Promise<string[]> {
    const customIds = (await this.custom?.running(accountId)) ?? [];
    return [...this.readyMadeIds().filter((id) => granted.includes(id)), ...[...customIds].sort()];
  }

  /** The runnable service for an id, or the prepare error (400007 unknown, 400008 not supported by batch). */
  async resolve(accountId: number, serviceId: string): Promise<Resolution> {
    const handler = analysisHandler(serviceId);
    if (handler && this.offered(serviceId)) return { ok: true, service: readyMade(this.app, handler) };
    const unsupported = (why: string) => ({ ok: false as const, error: new ApiError('batchServiceUnsupported', `service ${serviceId} ${why}`) });
    const entry = serviceById(serviceId);
    if (entry?.regions.includes(this.app.config.region as never)) return unsupported('is not offered for batch tasks in this region');
    if (OTHER_API_IDS.has(serviceId)) return unsupported('is not an analysis service; batch tasks run detect, classify, colour, fashion and custom classifier services');

    const source = this.custom;
    const status = source ? await source.status(accountId, serviceId) : null;
    if (source && status === 'running') return { ok: true, service: custom(source, accountId, serviceId) };
    if (status === 'unusable') return unsupported('is not running');
    if (await findService(this.app.db.pool, accountId, serviceId)) return unsupported('is a search service; batch tasks run analysis services');
    return { ok: false, error: new ApiError('batchServiceUnknown', `service ${serviceId} does not exist`) };
  }

  private offered(id: string): boolean {
    const entry = serviceById(id);
    const inRegion = entry ? entry.regions.includes(this.app.config.region as never) : true;
    return inRegion && (!this.allowed || this.allowed.has(id));
  }
}

/** The contract error of a failed line, in the service's own family (same codes as the interactive call). */
export function lineError(service: BatchService, problem: ImageProblem, message: string): ApiError {
  return analysisError(service.envelope, problem, message);
}
