import type { EmbedRequest } from '../../vision/embedding/embedder.js';
import { embedForQuery, type QueryEmbedding } from '../../vision/embedding/search-embedding.js';

/** `search-query-embed`: an `embed` payload → query vectors (whole, content box), the box and packed ORB features. */
export default function searchQueryEmbedTask(payload: EmbedRequest): Promise<QueryEmbedding> {
  return embedForQuery(payload);
}
