/**
 * The ready-made analysis services the backend can run, keyed by service id. The HTTP layer
 * (`domains/analysis/analysis.routes.ts`) fetches or receives the image, decodes it (auto-oriented RGB,
 * cropped to `loc`), calls `run`, maps boxes back to full-image coordinates and wraps the result in the
 * service's envelope (request_id and timing fields), so handlers only produce the service-specific part.
 */
import type { ClassifyResponse, ColorResponse, DetectResponse, DressingResponse, Lang, TaggingResponse } from '@iris/shared';
import type pg from 'pg';
import type { z } from 'zod';
import type { RgbImage } from '../../images/rgb-image.js';
import type { InferencePool } from '../../inference/inference-pool.js';

export interface AnalysisInput {
  /** The (loc-cropped) image to analyse. */
  rgb: RgbImage;
  /** The original encoded bytes as downloaded or uploaded (before cropping). */
  encoded: Uint8Array;
  /** Request parameters other than the image (e.g. `count`, `granularity`, `return_type`), as strings. */
  params: Record<string, string>;
  lang: Lang;
}

export interface AnalysisContext {
  pool: InferencePool;
  /** The region's PostgreSQL, for services that read operator data (registered logos). */
  db?: pg.Pool;
}

/**
 * Which envelope the route builds around a handler's result:
 * - detect: `{boxes_detected, detecttime, time, get_image_time, image_id, request_id, ver}` (times as strings);
 * - classify (scene, porn, custom classifiers): `{classify_time, is_err: 0, request_id, results, version}`;
 * - tagging: `{is_err: 0, request_id, results, time}` (time a number);
 * - color: `{is_err: 0, request_id, results, time}`;
 * - dressing: `{is_err: 0, request_id, time, labels, labels-en, results}`.
 */
export interface EnvelopeAnswers {
  detect: z.input<typeof DetectResponse>;
  classify: z.input<typeof ClassifyResponse>;
  tagging: z.input<typeof TaggingResponse>;
  color: z.input<typeof ColorResponse>;
  dressing: z.input<typeof DressingResponse>;
}
export type Envelope = keyof EnvelopeAnswers;

/** The service-specific part of each answer, as the contract types it (the envelope adds request id and times). */
export interface EnvelopeFields {
  detect: Pick<EnvelopeAnswers['detect'], 'boxes_detected'>;
  classify: Pick<EnvelopeAnswers['classify'], 'results'>;
  tagging: Pick<EnvelopeAnswers['tagging'], 'results'>;
  color: Pick<EnvelopeAnswers['color'], 'results'>;
  dressing: Pick<EnvelopeAnswers['dressing'], 'labels' | 'labels-en' | 'results'>;
}

export interface AnalysisHandler<E extends Envelope> {
  serviceId: string;
  envelope: E;
  /** Checks params before any image work; throws `ApiError` (e.g. colour: 400 for a bad granularity). */
  validate?(params: Record<string, string>): void;
  /**
   * Returns the service-specific fields: for detect `{boxes_detected: [...]}`; for classify/tagging/color
   * `{results: [...]}`; for dressing `{labels, 'labels-en', results}`. Boxes are `[x, y, w, h]` normalised to
   * the input image; model code must run in the pool (`ctx.pool.run(task, payload)`), never here.
   */
  run(ctx: AnalysisContext, input: AnalysisInput): Promise<EnvelopeFields[E]>;
  /** Smallest accepted image side in pixels (detect answers 400008 below it). */
  minSide?: number;
}

/** A handler of any envelope. */
export type AnyAnalysisHandler = { [E in Envelope]: AnalysisHandler<E> }[Envelope];

const handlers = new Map<string, AnyAnalysisHandler>();

export function registerAnalysis(handler: AnyAnalysisHandler): void {
  if (handlers.has(handler.serviceId)) throw new Error(`analysis service ${handler.serviceId} registered twice`);
  handlers.set(handler.serviceId, handler);
}

export function analysisHandler(serviceId: string): AnyAnalysisHandler | undefined {
  return handlers.get(serviceId);
}

export const answersIn = <E extends Envelope>(handler: AnyAnalysisHandler, envelope: E): handler is AnalysisHandler<E> & AnyAnalysisHandler => handler.envelope === envelope;

export function registeredAnalysisServices(): string[] {
  return [...handlers.keys()].sort();
}
