import type { EmbedRequest } from '../../embedding/embedder.js';
import { embedForIndex, type IndexEmbedding } from '../../embedding/search-embedding.js';

/** `search-index-embed`: an `embed` payload → the indexed vector (with thumbnail views) and packed ORB features. */
export default function searchIndexEmbedTask(payload: unknown): Promise<IndexEmbedding> {
  return embedForIndex((payload ?? {}) as EmbedRequest);
}
