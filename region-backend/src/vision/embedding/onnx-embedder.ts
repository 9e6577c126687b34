/**
 * An operator's ONNX image encoder (CLIP or DINOv2 image tower, any CNN) as Iris's image embedder: each view
 * of the picture (the same views as the built-in pipeline: scenario views, thumbnail copies) is brought to
 * the manifest's input size and normalisation, its output becomes one vector (as is, pooled from a feature
 * map, or from ViT tokens), and the L2-normalised view vectors are summed and normalised again. Worker
 * threads only. The model file and manifest are checked against the embedder id the caller expects once per
 * thread, so a query never runs a model other than the one its index was built with.
 */
import { loadManifestModel, manifestInput, type OutputTensor } from '../runtime/manifest-model.js';
import type { RgbImage } from '../../images/rgb-image.js';
import { embedderIdentity, type EmbedderIdentity, type EmbedderOutput, type EmbedderRef } from './embedder-identity.js';
import { l2normalise, pool, type FeatureMap } from './feature-pooling.js';
import type { ViewSpec } from './image-views.js';

export class EmbedderMismatchError extends Error {
  readonly code = 'embedder_changed';
  constructor(message: string) {
    super(message);
    this.name = 'EmbedderMismatchError';
  }
}

const identities = new Map<string, Promise<EmbedderIdentity>>();

/** The identity of the embedder behind `ref`, checked once per thread and manifest. */
export function checkedIdentity(ref: EmbedderRef): Promise<EmbedderIdentity> {
  const key = `${ref.manifestPath}\n${ref.id}`;
  let found = identities.get(key);
  if (!found) {
    found = embedderIdentity(ref.manifestPath!).then((identity) => {
      if (identity.id !== ref.id) {
        throw new EmbedderMismatchError(`image embedder ${ref.manifestPath} is now ${identity.id}, expected ${ref.id}: its model file or manifest changed`);
      }
      return identity;
    });
    found.catch(() => identities.delete(key));
    identities.set(key, found);
  }
  return found;
}

/**
 * How a view is rendered for a model of a fixed input size: its crop, mirror and thumbnail steps as in the
 * built-in pipeline, at the model's size (squashed for `stretch`, the aspect ratio kept otherwise; the
 * manifest's resize then brings it to the input size).
 */
export function viewForModel(view: ViewSpec, identity: EmbedderIdentity): ViewSpec {
  const [width, height] = identity.manifest.inputSize;
  return identity.manifest.resize === 'stretch' ? { ...view, size: Math.max(width, height), fit: 'squash' } : { ...view, size: Math.min(width, height), fit: 'aspect' };
}

/** One vector per image of the batch from the model's output (see embedderOutputSchema). */
export function vectorsOfOutput(out: OutputTensor, spec: EmbedderOutput): Float32Array[] {
  const { data, dims } = out;
  const n = dims[0] ?? 1;
  const per = data.length / n;
  const one = (i: number) => data.subarray(i * per, (i + 1) * per);
  let vectors: Float32Array[];
  if (dims.length === 2) vectors = Array.from({ length: n }, (_, i) => Float32Array.from(one(i)));
  else if (dims.length === 3) {
    const [, tokens, width] = dims as [number, number, number];
    vectors = Array.from({ length: n }, (_, i) => {
      const t = one(i);
      if ((spec.pooling ?? 'cls') === 'cls') return Float32Array.from(t.subarray(0, width));
      if (spec.pooling !== 'mean') throw new Error(`pooling ${spec.pooling} does not apply to a token output [N, T, D]; use cls or mean`);
      const v = new Float32Array(width);
      for (let k = 0; k < tokens; k++) for (let c = 0; c < width; c++) v[c] = v[c]! + t[k * width + c]! / tokens;
      return v;
    });
  } else if (dims.length === 4) {
    const pooling = spec.pooling ?? 'gem';
    if (pooling === 'cls' || pooling === 'mean') throw new Error(`pooling ${pooling} does not apply to a feature map; use gem, gap or mac`);
    vectors = Array.from({ length: n }, (_, i) => pool(featureMap(one(i), dims, spec.mapLayout), pooling));
  } else throw new Error(`image embedder output has ${dims.length} axes; expected [N, D], [N, T, D] or a feature map`);
  for (const v of vectors) if (v.length !== spec.dim) throw new Error(`image embedder output gives ${v.length} values, the manifest says dim ${spec.dim}`);
  return vectors;
}

/** One image's feature map as the NHWC map pooling reads. */
function featureMap(data: Float32Array, dims: number[], layout: 'nchw' | 'nhwc'): FeatureMap {
  if (layout === 'nhwc') {
    const [, height, width, channels] = dims as [number, number, number, number];
    return { data, height, width, channels };
  }
  const [, channels, height, width] = dims as [number, number, number, number];
  const plane = height * width;
  const out = new Float32Array(data.length);
  for (let c = 0; c < channels; c++) for (let p = 0; p < plane; p++) out[p * channels + c] = data[c * plane + p]!;
  return { data: out, height, width, channels };
}

/** Loads the model now (warm-up); throws when the manifest or file changed. */
export async function warmUpOnnxEmbedder(ref: EmbedderRef): Promise<void> {
  await loadManifestModel((await checkedIdentity(ref)).manifest);
}

/**
 * Each image's sum of its view vectors (`views[i]` are the rendered views of image i, already at the model's
 * size via `viewForModel`), each L2-normalised; embedder.ts normalises the sum into the image's vector.
 */
export async function onnxViewSums(ref: EmbedderRef, views: RgbImage[][]): Promise<Float32Array[]> {
  const identity = await checkedIdentity(ref);
  const model = await loadManifestModel(identity.manifest);
  const name = identity.manifest.outputNames?.[0] ?? model.outputNames[0];
  const index = Math.max(0, model.outputNames.indexOf(name!));
  const out: Float32Array[] = [];
  for (const imageViews of views) {
    const sum = new Float32Array(identity.dim);
    // One view per call: exported encoders often have a fixed batch of 1.
    for (const view of imageViews) {
      const outputs = await model.run(manifestInput([view], identity.manifest));
      const v = l2normalise(vectorsOfOutput(outputs[index]!, identity.output)[0]!);
      for (let i = 0; i < sum.length; i++) sum[i] = sum[i]! + v[i]!;
    }
    out.push(sum);
  }
  return out;
}
