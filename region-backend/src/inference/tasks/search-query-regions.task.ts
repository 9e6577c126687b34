import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import { embedQueryRegions, type QueryRegion } from '../../vision/embedding/query-regions.js';

export interface SearchQueryRegionsPayload {
  rgb: RgbImage;
  regions: QueryRegion[];
  embedder?: EmbedderRef;
}

/** `search-query-regions`: one vector per window of a decoded query (query-regions.ts). */
export default function searchQueryRegionsTask(payload: SearchQueryRegionsPayload): Promise<Float32Array[]> {
  return embedQueryRegions(payload.rgb, payload.regions, payload.embedder);
}
