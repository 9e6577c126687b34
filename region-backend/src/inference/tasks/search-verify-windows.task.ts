import { verifyCandidates, type Verification } from '../../vision/embedding/geometric-verify.js';
import { unpackLocalFeatures } from '../../vision/embedding/local-features.js';
import { boxInQuery, type Box } from '../../vision/embedding/query-regions.js';
import { featuresInWindow } from '../../vision/embedding/window-features.js';

export interface SearchVerifyWindowsPayload {
  /** packLocalFeatures bytes of the query described at the windows' scale (search-window-features). */
  query: Uint8Array;
  /** Each window of the query and its candidates (packLocalFeatures bytes; null where none are stored). */
  windows: { box: Box; candidates: (Uint8Array | null)[] }[];
}

/**
 * `search-verify-windows`: geometric verification of several windows' candidates, each window matching the
 * query's keypoints inside it (the query's description unpacked once for all); per window, per candidate, null
 * when not verified. A match's `queryBox` is in the whole query's coordinates.
 */
export default function searchVerifyWindowsTask(payload: SearchVerifyWindowsPayload): (Verification | null)[][] {
  const all = unpackLocalFeatures(payload.query);
  return payload.windows.map((window) =>
    verifyCandidates(
      featuresInWindow(all, window.box),
      window.candidates.map((c) => (c ? unpackLocalFeatures(c) : null)),
    ).map((v) => (v ? { ...v, queryBox: boxInQuery(window.box, v.queryBox) } : null)),
  );
}
