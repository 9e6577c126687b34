/**
 * Tuning of logo matching. Values were chosen on the generated evaluation set (`npm run eval -- logo`,
 * docs/logos.md); change them together with a rerun of that evaluation.
 */

/** Name of the feature recipe stored with each reference; references of another recipe are re-extracted. */
export const EXTRACTOR = 'orb-v1';

/** ORB descriptors are 256 bits. */
export const DESCRIPTOR_BYTES = 32;

export const REFERENCE = {
  /** Reference artwork is rescaled so its longest side has this many pixels (the frame of its keypoints). */
  side: 480,
  /** Keypoints are extracted at these scales of the reference (each with ORB's own 8-level pyramid): small logos in a query match the smaller copies. */
  scales: [1, 0.5, 0.25] as const,
  /** Keypoints kept per scale. */
  featuresPerScale: [800, 500, 300] as const,
  /** The artwork is padded with its own border colour so keypoints near its edges get a descriptor (ORB skips 31 px at the border). */
  padding: 32,
  /** A reference needs at least this many keypoints to be useful. */
  minKeypoints: 40,
  /** Smallest accepted artwork side, in pixels, after trimming transparent margins. */
  minSide: 48,
};

export const QUERY = {
  /** Queries are matched with their longest side at most this many pixels. */
  maxSide: 1280,
  /**
   * Smaller queries are enlarged up to this factor (towards maxSide), so small logos get keypoints
   * (evaluation, logos 9–18% of an 800 px picture's width: recall 61% → 74%, query time ×1.6).
   */
  maxUpscale: 1.6,
  /** Keypoints per query at maxSide × maxSide (proportionally fewer for smaller frames). */
  features: 3500,
};

export const VERIFY = {
  /** Longest side of the reference template compared with the query pixels. */
  templateSide: 160,
  /** Smallest normalised cross-correlation between the template and the query under the homography. */
  minCorrelation: 0.4,
  /**
   * Smallest correlation of the details (band-pass): look-alike logos sharing a layout, tagline or symbol
   * correlate well in the large but not in their details (evaluation: false detections ≤ 0.44, true ≥ 0.25).
   */
  minDetail: 0.3,
  /** Smallest fraction of the artwork that must fall inside the picture for the correlation to count. */
  minCoverage: 0.5,
};

export const MATCHING = {
  /** Lowe's ratio test: best distance below this fraction of the second best. */
  ratio: 0.8,
  /** Hamming distance above which a nearest neighbour is not a match at all (of 256 bits). */
  maxDistance: 90,
  /** RANSAC reprojection threshold, in query pixels at maxSide (scaled with the image). */
  ransacThreshold: 6,
  /** Enough for a 30% inlier share at 99.5% confidence; below that a hypothesis would fail verification anyway. */
  ransacIterations: 700,
  ransacConfidence: 0.995,
  /** A detection needs at least this many RANSAC inliers. */
  minInliers: 12,
  /** Smallest side of an accepted detection's box, in processed query pixels. */
  minBoxSide: 16,
  /** Projected sides may not be stretched more than this factor against each other (perspective limit). */
  maxSideStretch: 4,
  /** Inliers must spread over at least this fraction of the reference outline (width and height each). */
  minInlierSpread: 0.2,
  /** Instances of one reference searched for in one query (each found one is masked before the next search). */
  maxInstancesPerReference: 6,
  /** Hypotheses of one reference rejected in a row before its search stops. */
  maxRejectedInARow: 2,
  /** Boxes of one brand overlapping more than this (IoU) are the same instance. */
  sameInstanceIou: 0.3,
  /** A box lying on another brand's box by more than this fraction of its area (or of the other's): only the stronger is kept. */
  crossBrandOverlap: 0.5,
  /** Most boxes returned per query. */
  maxDetections: 50,
};

/**
 * Libraries with more reference images than `above` are not matched exhaustively: a descriptor index
 * (descriptor-index.ts) votes for the references a query may show, and only the best-voted are matched.
 */
export const SHORTLIST = {
  /** Up to this many references every one is matched (cheap anyway, and no vote can miss a small logo). */
  above: 8,
  /** References matched per query at most (a picture rarely shows more brands). */
  size: 16,
  /** A reference with fewer votes is not matched (a detection needs MATCHING.minInliers matches anyway). */
  minVotes: 3,
  /** Hamming distance within which a query descriptor votes for a reference's descriptor. */
  voteDistance: 64,
  /** Lowe's ratio over the whole library for a vote. */
  ratio: 0.8,
  /** Index buckets larger than this are ignored. */
  maxBucket: 2000,
};
