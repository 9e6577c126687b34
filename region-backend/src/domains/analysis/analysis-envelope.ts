/** Wraps a handler's service-specific fields in the envelope of its service (spec: "Detection result", …). */
import { secondsText } from '@iris/shared';
import type { Envelope, EnvelopeAnswers, EnvelopeFields } from './analysis-registry.js';

export interface Timing {
  downloadMs: number;
  analysisMs: number;
  totalMs: number;
}

interface Meta {
  requestId: string;
  version: string;
  imageId: string;
  timing: Timing;
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(3));

const BUILDERS: { [E in Envelope]: (fields: EnvelopeFields[E], meta: Meta) => EnvelopeAnswers[E] } = {
  detect: (fields, { timing, ...meta }) => ({
    boxes_detected: fields.boxes_detected ?? [],
    detecttime: secondsText(timing.analysisMs),
    time: secondsText(timing.totalMs),
    get_image_time: secondsText(timing.downloadMs),
    image_id: meta.imageId,
    request_id: meta.requestId,
    ver: meta.version,
  }),
  classify: (fields, { timing, ...meta }) => ({ classify_time: secondsText(timing.analysisMs), is_err: 0, request_id: meta.requestId, results: fields.results ?? [], version: meta.version }),
  tagging: (fields, { timing, requestId }) => ({ is_err: 0, request_id: requestId, results: fields.results ?? [], time: seconds(timing.totalMs) }),
  color: (fields, { timing, requestId }) => ({ is_err: 0, request_id: requestId, results: fields.results ?? [], time: seconds(timing.totalMs) }),
  dressing: (fields, { timing, requestId }) => ({
    is_err: 0,
    request_id: requestId,
    time: seconds(timing.totalMs),
    labels: fields.labels ?? [],
    'labels-en': fields['labels-en'] ?? [],
    results: fields.results ?? [],
  }),
};

export function buildEnvelope<E extends Envelope>(envelope: E, fields: EnvelopeFields[E], meta: Meta): EnvelopeAnswers[E] {
  return BUILDERS[envelope](fields, meta);
}

type Box = [number, number, number, number];

/** Maps boxes normalised to a `loc` crop back to the full image. */
export function boxesToFullImage<F extends object>(fields: F, loc: Box | null): F {
  if (!loc) return fields;
  const has = fields as { boxes_detected?: unknown; results?: unknown };
  const [lx, ly, lw, lh] = loc;
  const remap = (items: unknown) =>
    Array.isArray(items)
      ? items.map((item) => {
          const box = (item as { box?: unknown }).box;
          if (!Array.isArray(box) || box.length !== 4) return item;
          const [x, y, w, h] = box as Box;
          return { ...(item as object), box: [round(lx + x * lw), round(ly + y * lh), round(w * lw), round(h * lh)] };
        })
      : items;
  return { ...fields, ...(has.boxes_detected ? { boxes_detected: remap(has.boxes_detected) } : {}), ...(has.results ? { results: remap(has.results) } : {}) };
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;
