import type { RgbImage } from '../../images/rgb-image.js';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError, ClassifyResponse, colorServiceFor, isApiError, operationById, serviceById, TaggingResponse, type ImageInput } from '@iris/shared';
import { analysisHandler, answersIn, type AnalysisContext, type AnalysisHandler, type Envelope, type EnvelopeAnswers, type EnvelopeFields } from './analysis-registry.js';
import { registerAllAnalysisServices } from './services.js';
import { ImageDecodeError, parseLoc } from '../../images/image-decoder.js';
import { acquireQueryImage, QueryImageError } from '../../http/query-image.js';
import { readBody } from '../../http/request-body.js';
import type { Domain } from '../domain.js';
import { analysisError } from './analysis-errors.js';
import { boxesToFullImage, buildEnvelope } from './analysis-envelope.js';
import { requireGrantedService } from '../../http/edge-checks.js';
import type { ServerTimings } from '../../http/server-timing.js';
import type { RequestContext } from '../../http/request-context.js';
import { serve, serveAs } from '../../http/serve.js';
import { currentUsageScope } from '../../util/usage-scope.js';

type Loc = [number, number, number, number];
/** Longest side handed to analysis pipelines; models work at ≤ 1024 px, boxes are normalised. */
const ANALYSIS_MAX_SIDE = 1600;

/** Runs one ready-made analysis for a request: image in, envelope out (also used by batch tasks). */
export async function runAnalysis<E extends Envelope>(
  app: FastifyInstance,
  handler: AnalysisHandler<E>,
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
    /** The call's Server-Timing stages (decode, queue, thread). */
    timings?: ServerTimings;
  },
): Promise<EnvelopeAnswers[E]> {
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
    const decoding = () => app.decoder.rgb(input.bytes, { maxSide: ANALYSIS_MAX_SIDE, ...(loc ? { crop: loc } : {}) }, input.pool ? 'background' : 'interactive', input.accountId);
    rgb = await (input.timings ? input.timings.time('decode', decoding) : decoding());
  } catch (err) {
    if (err instanceof ImageDecodeError) throw analysisError(env, err.kind === 'bad-crop' ? 'bad-loc' : 'undecodable', `image cannot be decoded: ${err.message}`);
    throw err;
  }
  if (handler.minSide && Math.min(rgb.width, rgb.height) < handler.minSide) {
    throw analysisError(env, 'too-small', `query image is too small: at least ${handler.minSide} pixels per side are needed`);
  }
  const analysisStarted = performance.now();
  let fields: EnvelopeFields[E];
  try {
    const pool = input.pool ?? (input.accountId === undefined ? app.inference : app.inference.forAccount(input.accountId, input.timings));
    fields = await handler.run({ pool, db: app.db.pool }, { rgb, encoded: input.bytes, params: input.params, lang: input.lang });
  } catch (err) {
    if (isApiError(err)) throw err;
    app.log.error({ err, service: handler.serviceId }, 'analysis failed');
    throw analysisError(env, 'failed', 'analysis failed');
  }
  const analysisMs = performance.now() - analysisStarted;
  const usage = currentUsageScope();
  if (usage) app.usage.add(usage, { picturesAnalysed: 1 });
  return buildEnvelope(env, boxesToFullImage(fields, loc), {
    requestId: input.requestId,
    version: serviceById(handler.serviceId)?.version ?? '1.0',
    imageId: createHash('sha256').update(input.bytes).digest('hex').slice(0, 32),
    timing: { downloadMs: input.downloadMs, analysisMs, totalMs: performance.now() - input.startedAt },
  });
}

type ImageQuery = z.output<typeof ImageInput>;

/**
 * The service a call runs: the path's, or for a colour call the one its `sub_type` names (checked against the
 * account's services like the path's own).
 */
function selectedService(app: FastifyInstance, request: FastifyRequest, pathServiceId: string, subType: string | undefined): string {
  const serviceId = colorServiceFor(pathServiceId, subType);
  if (serviceId === null) throw new ApiError('analysisBadRequest', 'invalid sub_type (one of everything, foreground, person_outfit)');
  if (serviceId !== pathServiceId) requireGrantedService(request, serviceId, app.config.region, 'classifyServiceUnknown');
  return serviceId;
}

/** One analysis call, answered in the envelope `envelope` (the route's answer shape). */
async function handleAnalysis<E extends Envelope>(
  app: FastifyInstance,
  envelope: E,
  { input, params, request, ctx }: { input: ImageQuery; params: { service_id: string }; request: FastifyRequest; ctx: RequestContext },
): Promise<EnvelopeAnswers[E]> {
  const pathHandler = analysisHandler(params.service_id);
  if (!pathHandler || !answersIn(pathHandler, envelope)) throw new ApiError('classifyServiceUnknown', `service ${params.service_id} does not exist`);
  requireGrantedService(request, pathHandler.serviceId, app.config.region, 'classifyServiceUnknown');
  const body = await readBody(request, { tmpDir: app.config.uploadDir, paramError: (message) => analysisError(pathHandler.envelope, 'bad-loc', message) });
  const serviceId = selectedService(app, request, pathHandler.serviceId, body.fields.sub_type);
  const handler = serviceId === pathHandler.serviceId ? pathHandler : analysisHandler(serviceId);
  // Every colour service answers in the colour shape: the route's.
  if (!handler || !answersIn(handler, envelope)) throw new ApiError('classifyServiceUnknown', `service ${serviceId} does not exist`);
  handler.validate?.(body.fields);
  let image;
  try {
    image = await acquireQueryImage(app, input, ctx.accountId);
  } catch (err) {
    if (err instanceof QueryImageError) throw analysisError(handler.envelope, err.problem, err.message);
    throw err;
  }
  return runAnalysis<E>(app, handler, {
    bytes: image.bytes,
    downloadMs: image.downloadMs,
    params: body.fields,
    lang: ctx.lang,
    requestId: ctx.requestId,
    startedAt: ctx.startedAt,
    accountId: ctx.accountId,
    timings: ctx.timings,
  });
}

/** The analysis route's path; routed on the service id, not the type word (see `routes`). */
const ROUTE = '/:word/:service_id';
type Shape = Envelope | 'unknown';

/**
 * The answer shape of a call to `/{word}/{service_id}`: the envelope of the service's handler, `unknown` for a
 * service without one. Each shape is its own route with its own response schema.
 */
type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0];
type RouterHandler = Parameters<ReturnType<ConstraintStrategy['storage']>['set']>[1];
const analysisShape: ConstraintStrategy = {
  name: 'analysisShape',
  storage() {
    const routes = new Map<unknown, RouterHandler>();
    return { get: (shape) => routes.get(shape) ?? null, set: (shape, store) => void routes.set(shape, store) };
  },
  deriveConstraint(request): Shape {
    const segment = (request.url ?? '').split('?')[0]!.split('/')[2] ?? '';
    let serviceId = segment;
    try {
      serviceId = decodeURIComponent(segment);
    } catch {
      // not a service id
    }
    return analysisHandler(serviceId)?.envelope ?? 'unknown';
  },
};
const shaped = (shape: Shape) => ({ constraints: { analysisShape: shape } });

const routes: FastifyPluginAsync = async (app) => {
  registerAllAnalysisServices();
  app.addConstraintStrategy(analysisShape);
  // Routed on the service id, not the type word: old clients use other words for the same id
  // (`image_analysis_everything/_0000072`, `classify_porn/_0000024`). Static paths of other domains win.
  app.post<{ Params: { service_id: string } }>(ROUTE, { ...shaped('unknown'), config: { refusal: true } }, async function unknownAnalysisService(request) {
    throw new ApiError('classifyServiceUnknown', `service ${request.params.service_id} does not exist`);
  });
  app.post(ROUTE, { ...shaped('detect'), ...serve(operationById('detect'), (call) => handleAnalysis(app, 'detect', call)) });
  app.post(ROUTE, { ...shaped('classify'), ...serveAs(operationById('classify'), ClassifyResponse, (call) => handleAnalysis(app, 'classify', call)) });
  app.post(ROUTE, { ...shaped('tagging'), ...serveAs(operationById('classify'), TaggingResponse, (call) => handleAnalysis(app, 'tagging', call)) });
  app.post(ROUTE, { ...shaped('color'), ...serve(operationById('color'), (call) => handleAnalysis(app, 'color', call)) });
  app.post(ROUTE, { ...shaped('dressing'), ...serve(operationById('dressing'), (call) => handleAnalysis(app, 'dressing', call)) });
};

export const analysisDomain: Domain = { name: 'analysis', routes };
