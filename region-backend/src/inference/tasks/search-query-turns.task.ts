import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import { embedTurns } from '../../vision/embedding/query-turns.js';

export interface SearchQueryTurnsPayload {
  rgb: RgbImage;
  scenario: string;
  embedder?: EmbedderRef;
}

/** `search-query-turns`: one vector per quarter turn of a decoded query (query-turns.ts). */
export default function searchQueryTurnsTask(payload: SearchQueryTurnsPayload): Promise<Float32Array[]> {
  return embedTurns(payload.rgb, payload.scenario, payload.embedder);
}
