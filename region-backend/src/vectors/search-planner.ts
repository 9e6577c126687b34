/**
 * Chooses how to answer a tag-filtered query on an HNSW store: walk the graph and skip non-matching nodes
 * (hnswlib's filter callback), or scan the matching items exactly.
 *
 * A filtered graph walk keeps expanding until it has found ef matching nodes, so it visits about
 * `graphVisitsPerEf × ef / selectivity` nodes, each paying a distance and a call back into JavaScript.
 * An exact scan costs `matches × dimension` multiply-adds. The constants come from the benchmark
 * (docs/vector-store.md: 1M and 100k vectors, 1% and 20% filters; the walk cost per unit of ef / selectivity
 * is ~1.4 µs); the scan is preferred up to `scanBias` times its predicted cost because it is exact, whereas a
 * walk through a graph of mostly non-matching nodes loses recall.
 */
export const PLANNER = {
  /** Nanoseconds per multiply-add of the JS int8 scan. */
  scanNsPerDim: 0.85,
  /** Filter callbacks per unit of ef at the observed selectivity (hnswlib checks every closer candidate). */
  graphVisitsPerEf: 1.8,
  /** Nanoseconds per visited node: distance in C++ plus the JS filter call. */
  graphNsPerVisit: 800,
  scanBias: 1.5,
} as const;

export type FilterStrategy = 'graph' | 'scan';

export interface FilterPlan {
  strategy: FilterStrategy;
  matches: number;
  selectivity: number;
  /** Predicted microseconds of each strategy. */
  scanMicros: number;
  graphMicros: number;
}

export function planFilteredSearch(matches: number, size: number, ef: number, dimension: number): FilterPlan {
  const selectivity = size > 0 ? Math.min(1, matches / size) : 0;
  const scanMicros = (matches * dimension * PLANNER.scanNsPerDim) / 1000;
  const visits = selectivity > 0 ? Math.min(size, (PLANNER.graphVisitsPerEf * ef) / selectivity) : size;
  const graphMicros = (visits * PLANNER.graphNsPerVisit) / 1000;
  const strategy: FilterStrategy = scanMicros <= graphMicros * PLANNER.scanBias ? 'scan' : 'graph';
  return { strategy, matches, selectivity, scanMicros, graphMicros };
}
