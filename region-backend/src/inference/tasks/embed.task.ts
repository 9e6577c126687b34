import { embed, embedMany, type EmbedRequest, type EmbedResult } from '../../vision/embedding/embedder.js';
import { batchItems } from './batch-items.js';

/**
 * `embed`: `{image: Uint8Array} | {rgb: {data, width, height}}` (+ optional `loc` [x, y, w, h] normalised and
 * `scenario`) → `{vector: Float32Array (L2-normalised, EMBEDDING_DIM), width, height}`.
 */
export default function embedTask(payload: unknown): Promise<EmbedResult> {
  return embed((payload ?? {}) as EmbedRequest);
}

/** Background batches: all views of all images through the backbone together. */
export async function batch(payloads: unknown[]) {
  return batchItems(await embedMany(payloads.map((p) => (p ?? {}) as EmbedRequest)));
}
