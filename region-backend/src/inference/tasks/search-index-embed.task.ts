import type { EmbedRequest } from '../../vision/embedding/embedder.js';
import { embedForIndex, embedForIndexMany, type IndexEmbedding } from '../../vision/embedding/search-embedding.js';
import { batchItems } from './batch-items.js';

/** `search-index-embed`: an `embed` payload → the indexed vector (with thumbnail views) and packed ORB features. */
export default function searchIndexEmbedTask(payload: EmbedRequest): Promise<IndexEmbedding> {
  return embedForIndex(payload);
}

/** Background batches: all views of all images through the backbone together. */
export async function batch(payloads: EmbedRequest[]) {
  return batchItems(await embedForIndexMany(payloads));
}
