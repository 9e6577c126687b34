import { embed, embedMany, type EmbedRequest, type EmbedResult } from '../../vision/embedding/embedder.js';
import { batchItems } from './batch-items.js';

/**
 * `embed`: `{image: Uint8Array} | {rgb: {data, width, height}}` (+ optional `loc` [x, y, w, h] normalised and
 * `scenario`) → `{vector: Float32Array (L2-normalised, EMBEDDING_DIM), width, height}`.
 */
export default function embedTask(payload: EmbedRequest): Promise<EmbedResult> {
  return embed(payload);
}

/** Background batches: all views of all images through the backbone together. */
export async function batch(payloads: EmbedRequest[]) {
  return batchItems(await embedMany(payloads));
}
