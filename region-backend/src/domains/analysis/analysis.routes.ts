import type { RgbImage } from '../../images/rgb-image.js';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError, ImageInput, colorServiceFor, isApiError, serviceById } from '@iris/shared';
import { analysisHandler, type AnalysisContext, type AnalysisHandler } from './analysis-registry.js';
import { registerAllAnalysisServices } from './services.js';
import { ImageDecodeError, parseLoc } from '../../images/image-decoder.js';
import { inputOf } from '../../http/contract.hook.js';
import { acquireQueryImage, QueryImageError } from '../../http/query-image.js';
import { readBody } from '../../http/request-body.js';
import type { Domain } from '../domain.js';
import { analysisError } from './analysis-errors.js';
import { boxesToFullImage, buildEnvelope } from './analysis-envelope.js';
import { requireGrantedService } from '../../http/edge-checks.js';

type Loc = [number, number, number, number];
/** Longest side handed to analysis pipelines; models work at ≤ 1024 px, boxes are normalised. */
const ANALYSIS_MAX_SIDE = 1600;

/** Runs one ready-made analysis for a request: image in, envelope out (also used by batch tasks). */
export async function runAnalysis(
  app: FastifyInstance,
  handler: AnalysisHandler,
  input: {
    bytes: Uint8Array;
    downloadMs: number;
    params: Record<string, string>;
    lang: 'en' | 'zh';
    requestId: string;
    startedAt: number;
    /** The calling account: its model work takes turns with other accounts' (inference-pool.ts). */
    accountId?: number;
    /** Pool for model code (default `app.inference`); batch tasks pass a background-priority view of it. */
    pool?: AnalysisContext['pool'];
  },
): Promise<Record<string, unknown>> {
  const env = handler.envelope;
  let loc: Loc | null = null;
  if (input.params.loc?.trim()) {
    try {
      loc = parseLoc(input.params.loc) as Loc;
    } catch (err) {
      throw analysisError(env, 'bad-loc', `invalid loc: ${(err as Error).message}`);
    }
  }
  let rgb: RgbImage;
  try {
    rgb = await app.decoder.rgb(input.bytes, { maxSide: ANALYSIS_MAX_SIDE, ...(loc ? { crop: loc } : {}) }, input.pool ? 'background' : 'interactive', input.accountId);
  } catch (err) {
    if (err instanceof ImageDecodeError) throw analysisError(env, err.kind === 'bad-crop' ? 'bad-loc' : 'undecodable', `image cannot be decoded: ${err.message}`);
    throw err;
  }
  if (handler.minSide && Math.min(rgb.width, rgb.height) < handler.minSide) {
    throw analysisError(env, 'too-small', `query image is too small: at least ${handler.minSide} pixels per side are needed`);
  }
  const analysisStarted = performance.now();
  let fields: Record<string, unknown>;
  try {
    const pool = input.pool ?? (input.accountId === undefined ? app.inference : app.inference.forAccount(input.accountId));
    fields = await handler.run({ pool, db: app.db.pool }, { rgb, encoded: input.bytes, params: input.params, lang: input.lang });
  } catch (err) {
    if (isApiError(err)) throw err;
    app.log.error({ err, service: handler.serviceId }, 'analysis failed');
    throw analysisError(env, 'failed', 'analysis failed');
  }
  const analysisMs = performance.now() - analysisStarted;
  return buildEnvelope(env, boxesToFullImage(fields, loc), {
    requestId: input.requestId,
    version: serviceById(handler.serviceId)?.version ?? '1.0',
    imageId: createHash('sha256').update(input.bytes).digest('hex').slice(0, 32),
    timing: { downloadMs: input.downloadMs, analysisMs, totalMs: performance.now() - input.startedAt },
  });
}

/**
 * The handler a call runs: the path's service, or for a colour call the one its `sub_type` names (checked
 * against the account's services like the path's own).
 */
async function selectHandler(app: FastifyInstance, request: FastifyRequest<{ Params: { word: string; serviceId: string } }>) {
  const pathHandler = analysisHandler(request.params.serviceId);
  if (!pathHandler) throw new ApiError('classifyServiceUnknown', `service ${request.params.serviceId} does not exist`);
  requireGrantedService(request, pathHandler.serviceId, app.config.region, 'classifyServiceUnknown');
  const body = await readBody(request, { tmpDir: app.config.uploadDir, paramError: (message) => analysisError(pathHandler.envelope, 'bad-loc', message) });
  const serviceId = colorServiceFor(pathHandler.serviceId, body.fields.sub_type);
  if (serviceId === null) throw new ApiError('analysisBadRequest', 'invalid sub_type (one of everything, foreground, person_outfit)');
  if (serviceId === pathHandler.serviceId) return { handler: pathHandler, body };
  const handler = analysisHandler(serviceId);
  if (!handler) throw new ApiError('classifyServiceUnknown', `service ${serviceId} does not exist`);
  requireGrantedService(request, serviceId, app.config.region, 'classifyServiceUnknown');
  return { handler, body };
}

async function handleAnalysis(app: FastifyInstance, request: FastifyRequest<{ Params: { word: string; serviceId: string } }>) {
  const { handler, body } = await selectHandler(app, request);
  handler.validate?.(body.fields);
  let image;
  try {
    image = await acquireQueryImage(app, inputOf(request, ImageInput), request.ctx.accountId);
  } catch (err) {
    if (err instanceof QueryImageError) throw analysisError(handler.envelope, err.problem, err.message);
    throw err;
  }
  return runAnalysis(app, handler, {
    bytes: image.bytes,
    downloadMs: image.downloadMs,
    params: body.fields,
    lang: request.ctx.lang,
    requestId: request.ctx.requestId,
    startedAt: request.ctx.startedAt,
    accountId: request.ctx.accountId,
  });
}

const routes: FastifyPluginAsync = async (app) => {
  registerAllAnalysisServices();
  // Routed on the service id, not the type word: old clients use other words for the same id
  // (`image_analysis_everything/_0000072`, `classify_porn/_0000024`). Static paths of other domains win.
  app.post<{ Params: { word: string; serviceId: string } }>('/:word/:serviceId', (request) => handleAnalysis(app, request));
};

export const analysisDomain: Domain = { name: 'analysis', routes };
