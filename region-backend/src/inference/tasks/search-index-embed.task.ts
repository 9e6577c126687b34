import { embedForIndex, embedForIndexMany, type IndexEmbedding, type IndexEmbedRequest } from '../../vision/embedding/search-embedding.js';
import { batchItems } from './batch-items.js';

/**
 * `search-index-embed`: an `embed` payload → the indexed vector (with thumbnail views) and packed ORB features,
 * in one pass or two (`pass`, search-embedding.ts).
 */
export default function searchIndexEmbedTask(payload: IndexEmbedRequest): Promise<IndexEmbedding> {
  return embedForIndex(payload);
}

/** Background batches: all views of all images through the backbone together. */
export async function batch(payloads: IndexEmbedRequest[]) {
  return batchItems(await embedForIndexMany(payloads));
}
