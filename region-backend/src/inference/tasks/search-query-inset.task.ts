import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import { queryViews } from '../../vision/embedding/embedding-views.js';
import { queryInset, type Box } from '../../vision/embedding/query-regions.js';

export interface SearchQueryInsetPayload {
  rgb: RgbImage;
  scenario: string;
  embedder?: EmbedderRef;
}

/**
 * `search-query-inset`: a picture pasted inside a decoded query (inset-box.ts), cut out and embedded with the
 * scenario's query views; null when the query shows none. Runs beside `search-query-regions`.
 */
export default function searchQueryInsetTask(payload: SearchQueryInsetPayload): Promise<{ box: Box; vector: Float32Array } | null> {
  return queryInset(payload.rgb, queryViews(payload.scenario), payload.embedder);
}
