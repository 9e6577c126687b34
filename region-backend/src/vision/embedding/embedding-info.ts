/**
 * What the production image embedding is, readable without loading any model runtime (the main thread and
 * the vector stores use it). Chosen by `npm run eval -- embedding`; see docs/embedding.md.
 */
import type { Pooling } from './feature-pooling.js';

export const EMBEDDING_PIPELINE = {
  /** nsfwjs@4.4.0 MobileNetV2-Mid: last conv map (1792 channels) and blocks 12 and 14 (136 and 224 channels). */
  model: 'nsfwjs-4.4.0-mobilenet_v2_mid-conv1.b12.b14',
  pooling: 'gem' as Pooling,
  /**
   * The maps pooled (backbone.ts EMBEDDING_OUTPUTS, same order): each GeM-pooled, L2-normalised, scaled by its
   * weight and joined, so mid-level shape and texture count beside the last layer (eval "Backbone blocks").
   */
  layers: [
    { id: 'conv1', weight: 1 },
    { id: 'b12', weight: 1 },
    { id: 'b14', weight: 1 },
  ],
  whitening: {
    /** Relative to this module. Regenerate with `npm run eval -- embedding --fit`. */
    file: 'assets/mnv2mid-3gem-pcaw256.bin',
    dim: 256,
    power: 0.5,
    shrink: 0,
  },
  /** The evaluation rows this pipeline corresponds to (its blocks: the "Backbone blocks" row `conv1 + b12 + b14`). */
  evalConfig: 'mnv2mid asp224',
  evalLayers: 'conv1 + b12 + b14',
  evalWhitening: 'pcaw256',
} as const;

export const EMBEDDING_DIM = EMBEDDING_PIPELINE.whitening.dim;

/** Stored with every vector: an index built under another version must be rebuilt. */
export const EMBEDDING_VERSION = 'mnv2mid-conv1.b12.b14.asp224.gem.pcaw256.v2';
