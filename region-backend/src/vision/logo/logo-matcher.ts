/**
 * Instance matching of a query against registered reference logos (runs on inference threads):
 * brute-force Hamming k-NN from every query keypoint to each reference, Lowe's ratio test, RANSAC homography,
 * checks on the projected outline, a photometric check of the artwork, and repeated search with the found
 * instance masked out.
 */
import type { QueryFeatures } from './logo-features.js';
import { descriptorWords, matchesFromNearestTwo, ratioMatches, type Match } from './hamming-knn.js';
import { SimdHamming } from './hamming-simd.js';
import { descriptorIndex } from './descriptor-index.js';
import { ransacHomography, type HomographyFit } from './homography-ransac.js';
import { clippedBounds, insideQuad, intersectionOverSmaller, iou, isConvexSameTurn, projectOutline, sideStretch, signedArea, type Box, type Quad } from './logo-geometry.js';
import { MATCHING, QUERY, SHORTLIST, VERIFY } from './logo-params.js';
import { GreyPyramid, templateCorrelation } from './logo-verify.js';
import type { LibraryPayload, LibraryReference } from './library-payload.js';

export type { LibraryPayload, LibraryReference };

export interface LogoDetection {
  brandId: number;
  referenceId: number;
  /** Normalised [x, y, w, h] of the projected outline, clipped to the picture. */
  box: Box;
  /** Projected outline corners, normalised. */
  quad: Quad;
  inliers: number;
  /** Ratio-test matches inside the projected outline. */
  candidates: number;
  /** Normalised cross-correlation of the artwork with the picture under the homography. */
  correlation: number;
  /** The same on details (band-pass). */
  detail: number;
  score: number;
}

function homography(matches: readonly Match[], query: QueryFeatures, refPoints: Float32Array, threshold: number): HomographyFit | null {
  const src = new Float64Array(matches.length * 2);
  const dst = new Float64Array(matches.length * 2);
  matches.forEach(([q, r], i) => {
    src[2 * i] = refPoints[2 * r]!;
    src[2 * i + 1] = refPoints[2 * r + 1]!;
    dst[2 * i] = query.points[2 * q]!;
    dst[2 * i + 1] = query.points[2 * q + 1]!;
  });
  return ransacHomography(src, dst, { threshold, maxIterations: MATCHING.ransacIterations, confidence: MATCHING.ransacConfidence, seed: matches.length });
}

/** Inliers must cover a fair part of the outline: a homography resting on one corner of the artwork is not reliable. */
function spreadOk(matches: readonly Match[], mask: Uint8Array, refPoints: Float32Array, outline: LibraryReference['outline']): boolean {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  matches.forEach(([, r], i) => {
    if (!mask[i]) return;
    const x = refPoints[2 * r]!;
    const y = refPoints[2 * r + 1]!;
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  });
  return x1 - x0 >= MATCHING.minInlierSpread * (outline[2] - outline[0]) && y1 - y0 >= MATCHING.minInlierSpread * (outline[3] - outline[1]);
}

/**
 * 0…1: the mean of the inlier ratio inside the found outline and the detail correlation, damped while the
 * number of inliers is small (12 inliers: ×0.63; 36: ×0.95).
 */
export function detectionScore(inliers: number, candidates: number, detail: number): number {
  const ratio = inliers / Math.max(inliers, candidates);
  return ((ratio + Math.max(0, detail)) / 2) * (1 - Math.exp(-inliers / 12));
}

/** The homography from template pixels to query pixels: the reference homography after the template's scaling. */
function templateHomography(h: Float64Array, reference: LibraryReference): Float64Array {
  const [x0, y0, x1, y1] = reference.outline;
  const sx = (x1 - x0) / reference.template.width;
  const sy = (y1 - y0) / reference.template.height;
  // h · [[sx, 0, x0], [0, sy, y0], [0, 0, 1]]
  const m = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    m[r * 3] = h[r * 3]! * sx;
    m[r * 3 + 1] = h[r * 3 + 1]! * sy;
    m[r * 3 + 2] = h[r * 3]! * x0 + h[r * 3 + 1]! * y0 + h[r * 3 + 2]!;
  }
  return m;
}

/** Every instance of one reference in the query. */
export function matchReference(query: QueryFeatures, pyramid: GreyPyramid, library: LibraryPayload, nearest: NearestMatches, reference: LibraryReference): LogoDetection[] {
  const template = {
    width: reference.template.width,
    height: reference.template.height,
    pixels: library.templates.subarray(reference.template.offset, reference.template.offset + 2 * reference.template.width * reference.template.height),
  };
  const points = library.points.subarray(reference.offset * 2, (reference.offset + reference.count) * 2);
  let matches = nearest(reference);
  const threshold = Math.max(2, (MATCHING.ransacThreshold * Math.max(query.width, query.height)) / QUERY.maxSide);
  const frameArea = query.width * query.height;
  const found: LogoDetection[] = [];
  let rejected = 0;
  while (found.length < MATCHING.maxInstancesPerReference && rejected < MATCHING.maxRejectedInARow) {
    if (matches.length < MATCHING.minInliers) break;
    const hypothesis = homography(matches, query, points, threshold);
    if (!hypothesis || hypothesis.inliers < MATCHING.minInliers) break;
    const quad = projectOutline(hypothesis.h, reference.outline);
    const bounds = quad && clippedBounds(quad, query.width, query.height);
    const valid =
      quad !== null &&
      bounds !== null &&
      isConvexSameTurn(quad) &&
      signedArea(quad) <= 4 * frameArea &&
      Math.min(bounds[2], bounds[3]) >= MATCHING.minBoxSide &&
      sideStretch(quad, reference.outline) <= MATCHING.maxSideStretch &&
      spreadOk(matches, hypothesis.inlierMask, points, reference.outline);
    const correlation = valid ? templateCorrelation(template, templateHomography(hypothesis.h, reference), pyramid) : null;
    const verified =
      correlation !== null && correlation.coverage >= VERIFY.minCoverage && correlation.ncc >= VERIFY.minCorrelation && correlation.detail >= VERIFY.minDetail;
    if (!valid || !verified || !quad || !bounds) {
      // Drop this hypothesis' inliers and look again among the remaining matches.
      matches = matches.filter((_, i) => !hypothesis.inlierMask[i]);
      rejected++;
      continue;
    }
    rejected = 0;
    const inside = (m: Match) => insideQuad(quad, query.points[2 * m[0]]!, query.points[2 * m[0] + 1]!, 0.1);
    const candidates = matches.filter(inside).length;
    const { width, height } = query;
    found.push({
      brandId: reference.brandId,
      referenceId: reference.id,
      box: [bounds[0] / width, bounds[1] / height, bounds[2] / width, bounds[3] / height],
      quad: quad.map(([x, y]) => [x / width, y / height]) as Quad,
      inliers: hypothesis.inliers,
      candidates,
      correlation: correlation.ncc,
      detail: correlation.detail,
      score: detectionScore(hypothesis.inliers, candidates, correlation.detail),
    });
    // Mask the found instance: matches inside it (and its inliers) take no part in the next search.
    matches = matches.filter((m, i) => !hypothesis.inlierMask[i] && !inside(m));
  }
  return found;
}

/**
 * One box per instance: detections with the most inliers first; a box is dropped when it repeats an accepted
 * box of its brand (IoU) or lies mostly on an accepted box of another brand (a region shows one logo).
 */
export function resolveDetections(detections: readonly LogoDetection[]): LogoDetection[] {
  const accepted: LogoDetection[] = [];
  for (const d of [...detections].sort((a, b) => b.inliers - a.inliers || b.score - a.score)) {
    const conflict = accepted.some((a) =>
      a.brandId === d.brandId ? iou(a.box, d.box) > MATCHING.sameInstanceIou : intersectionOverSmaller(a.box, d.box) > MATCHING.crossBrandOverlap,
    );
    if (!conflict) accepted.push(d);
    if (accepted.length >= MATCHING.maxDetections) break;
  }
  return accepted;
}

/** Ratio-test matches of the query's keypoints with one reference's. */
export type NearestMatches = (reference: LibraryReference) => Match[];

let simd: SimdHamming | null | undefined;

/** Brute-force matching of one query against the library: WebAssembly SIMD when available, else JavaScript. */
export function nearestMatcher(query: QueryFeatures, library: LibraryPayload): NearestMatches {
  if (simd === undefined) simd = SimdHamming.create();
  if (simd) {
    simd.useLibrary(library.key, library.descriptors);
    const knn = simd.useQuery(query.descriptors);
    return (reference) => (reference.count < 2 ? [] : matchesFromNearestTwo(knn.nearestTwo(reference.offset, reference.count), MATCHING.ratio, MATCHING.maxDistance));
  }
  const queryWords = descriptorWords(query.descriptors);
  const libraryWords = descriptorWords(library.descriptors);
  return (reference) => ratioMatches(queryWords, query.count, libraryWords, reference.offset, reference.count, MATCHING.ratio, MATCHING.maxDistance);
}

/** The references worth matching: all of a small library, the best-voted of a large one. */
export function candidateReferences(query: QueryFeatures, library: LibraryPayload, shortlist = SHORTLIST): LibraryReference[] {
  if (library.references.length <= shortlist.above) return library.references;
  const votes = descriptorIndex(library).votes(query.descriptors, shortlist);
  return library.references
    .map((reference, i) => ({ reference, votes: votes[i]! }))
    .filter((c) => c.votes >= shortlist.minVotes)
    .sort((a, b) => b.votes - a.votes)
    .slice(0, shortlist.size)
    .map((c) => c.reference);
}

/** Instances of the library's references in the query. */
export function matchLibrary(query: QueryFeatures, library: LibraryPayload, shortlist = SHORTLIST): LogoDetection[] {
  if (query.count < MATCHING.minInliers || !library.references.length) return [];
  const candidates = candidateReferences(query, library, shortlist);
  if (!candidates.length) return [];
  const nearest = nearestMatcher(query, library);
  const pyramid = new GreyPyramid(query.grey);
  const all = candidates.flatMap((reference) => matchReference(query, pyramid, library, nearest, reference));
  return resolveDetections(all);
}
