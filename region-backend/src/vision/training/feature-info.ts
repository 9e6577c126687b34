/**
 * What a custom classifier sees of an image, readable without loading any model runtime (the main thread,
 * the repository and the evaluation use it). Chosen by `npm run eval -- training` (see docs/custom-training.md):
 * the platform's backbone (nsfwjs MobileNetV2-Mid, the search embedding's network) tapped at three mid-level
 * blocks instead of its last layer, each map pooled with GeM over a 2 × 2 grid, so coarse layout survives.
 * Its last layer is tuned to nsfwjs's own task; the mid-level blocks carry more generic shape and texture.
 */
const BLOCK = 'StatefulPartitionedCall/sequential/keras_layer/StatefulPartitionedCall/StatefulPartitionedCall/StatefulPartitionedCall/predict/MobilenetV2/';

export interface FeatureTap {
  /** Graph node of the backbone. */
  node: string;
  channels: number;
}

export const CLASSIFIER_FEATURES = {
  /** Input: the whole image squashed to a square of this side. */
  inputSize: 160,
  taps: [
    { node: `${BLOCK}expanded_conv_9/add`, channels: 88 },
    { node: `${BLOCK}expanded_conv_12/add`, channels: 136 },
    { node: `${BLOCK}expanded_conv_14/add`, channels: 224 },
  ] as readonly FeatureTap[],
  /** GeM pooling exponent and the grid of pooled cells per tap (grid × grid cells, overlapping on odd sides). */
  gemPower: 3,
  grid: 2,
} as const;

/** Values per image: every tap's channels for every grid cell. */
export const CLASSIFIER_FEATURE_DIM = CLASSIFIER_FEATURES.taps.reduce((sum, t) => sum + t.channels, 0) * CLASSIFIER_FEATURES.grid ** 2;

/**
 * Stored with every feature vector and trained model: features of another pipeline are computed again, and a
 * model trained under another pipeline must be retrained.
 */
export const CLASSIFIER_FEATURE_PIPELINE = 'mnv2mid-b9.b12.b14-gem2x2-160.v1';
