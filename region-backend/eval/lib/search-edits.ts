/** The search edits of the robustness evaluation: the same generators a search service's self-evaluation uses. */
export { makeSearchQuery, SEARCH_EDITS, type SearchEdit } from '../../src/images/query-edits.js';
