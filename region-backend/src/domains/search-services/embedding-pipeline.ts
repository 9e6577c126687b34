/**
 * The embedding pipeline of a scenario: the model version plus the views averaged at indexing time (the
 * scenario's, plus thumbnail copies) and the local-feature recipe. Scenarios
 * with the same views share one pipeline (and so their stored embeddings); changing a scenario's views or
 * the model gives a new pipeline id, so services re-embed instead of mixing vectors of two pipelines.
 */
import { createHash } from 'node:crypto';
import { EMBEDDING_DIM, EMBEDDING_VERSION } from '../../vision/embedding/embedding-info.js';
import { indexViews } from '../../vision/embedding/embedding-views.js';
import { LOCAL_FEATURES } from '../../vision/embedding/local-features.js';

export function pipelineOf(scenario: string): string {
  const recipe = JSON.stringify({ views: indexViews(scenario), features: LOCAL_FEATURES.recipe });
  return `${EMBEDDING_VERSION}/${createHash('sha256').update(recipe).digest('hex').slice(0, 12)}`;
}

/** Float32 little-endian bytes, as stored in image_embeddings.vector. */
export function vectorToBytes(vector: Float32Array): Buffer {
  if (vector.length !== EMBEDDING_DIM) throw new RangeError(`embedding has ${vector.length} values, expected ${EMBEDDING_DIM}`);
  const out = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, i * 4);
  return out;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  if (bytes.length !== EMBEDDING_DIM * 4) throw new RangeError(`stored embedding has ${bytes.length} bytes, expected ${EMBEDDING_DIM * 4}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(EMBEDDING_DIM);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
