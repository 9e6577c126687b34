/** Wraps a handler's service-specific fields in the envelope of its service (spec: "Detection result", …). */
import { secondsText } from '@iris/shared';
import type { Envelope } from './analysis-registry.js';

export interface Timing {
  downloadMs: number;
  analysisMs: number;
  totalMs: number;
}

export function buildEnvelope(
  envelope: Envelope,
  fields: Record<string, unknown>,
  meta: { requestId: string; version: string; imageId: string; timing: Timing },
): Record<string, unknown> {
  const { timing, requestId } = meta;
  const seconds = Number((timing.totalMs / 1000).toFixed(3));
  switch (envelope) {
    case 'detect':
      return {
        boxes_detected: fields.boxes_detected ?? [],
        detecttime: secondsText(timing.analysisMs),
        time: secondsText(timing.totalMs),
        get_image_time: secondsText(timing.downloadMs),
        image_id: meta.imageId,
        request_id: requestId,
        ver: meta.version,
      };
    case 'classify':
      return { classify_time: secondsText(timing.analysisMs), is_err: 0, request_id: requestId, results: fields.results ?? [], version: meta.version };
    case 'tagging':
    case 'color':
      return { is_err: 0, request_id: requestId, results: fields.results ?? [], time: seconds };
    case 'dressing':
      return { is_err: 0, request_id: requestId, time: seconds, labels: fields.labels ?? [], 'labels-en': fields['labels-en'] ?? [], results: fields.results ?? [] };
  }
}

type Box = [number, number, number, number];

/** Maps boxes normalised to a `loc` crop back to the full image. */
export function boxesToFullImage(fields: Record<string, unknown>, loc: Box | null): Record<string, unknown> {
  if (!loc) return fields;
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
  return { ...fields, ...(fields.boxes_detected ? { boxes_detected: remap(fields.boxes_detected) } : {}), ...(fields.results ? { results: remap(fields.results) } : {}) };
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;
