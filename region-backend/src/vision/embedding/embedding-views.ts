/**
 * Which views of a picture make its vector, on each side of a search. Indexed pictures are described by their
 * scenario's views plus thumbnail-sized copies of the whole picture, so that a small query (a 96–128 px
 * thumbnail, a picture shrunk inside a screenshot) lands near its source; queries use the scenario's views
 * only. Chosen by `npm run eval -- search-robustness` (docs/search-robustness.md). No model import.
 */
import type { ViewSpec } from './image-views.js';
import { scenarioViews } from './scenario-config.js';

const WHOLE: ViewSpec = { size: 224, fit: 'aspect' };

/** Longer sides of the thumbnail copies seen at indexing time (changing them changes every stored vector: a new EMBEDDING_VERSION). */
const THUMB_SIDES = [112];

export const THUMB_VIEWS: readonly ViewSpec[] = THUMB_SIDES.map((side) => ({ ...WHOLE, sourceSide: side }));

/** The general scenario's views, for queries. */
export const QUERY_VIEWS: readonly ViewSpec[] = [WHOLE];
export const INDEX_VIEWS: readonly ViewSpec[] = [WHOLE, ...THUMB_VIEWS];

export function indexViews(scenario: string | undefined): ViewSpec[] {
  return [...scenarioViews(scenario), ...THUMB_VIEWS];
}

export function queryViews(scenario: string | undefined): ViewSpec[] {
  return scenarioViews(scenario);
}
