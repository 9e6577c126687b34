/**
 * The embedding backbone: nsfwjs MobileNetV2 (width 1.4, "Mid"), converted to ONNX and run on ONNX Runtime,
 * tapped at its last convolutional feature map (`Conv_1/Relu6`, 1792 channels, stride 32) and two mid-level
 * blocks instead of its classifier. The bundle declares a fixed 224×224 input; the convolutional part works at any size, so the
 * conversion frees height and width to let views keep their aspect ratio or use a larger scale. Images of
 * one size run as one batch. IRIS_BACKBONE_PRECISION=int8 runs it statically quantised to int8 (QDQ,
 * calibrated on the sample pictures shipped with the model pack); the float conversion is the default.
 * Worker threads only.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { resolveModelFile } from '../runtime/model-config.js';
import { backbonePrecision } from '../runtime/backbone-precision.js';
import { calibrationImages, calibrationKey } from '../runtime/calibration-images.js';
import { convertedSession, type ConversionSpec } from '../runtime/converted-model.js';
import { ort } from '../runtime/onnx-session.js';
import { quantisedSession, type CalibrationSet, type QuantisationSpec } from '../runtime/quantised-model.js';
import type { FeatureMap } from './feature-pooling.js';

export type { RgbImage };

const PREFIX = 'StatefulPartitionedCall/sequential/keras_layer/StatefulPartitionedCall/StatefulPartitionedCall/StatefulPartitionedCall/predict/';
export const MOBILENET_V2_MID_CONV = `${PREFIX}MobilenetV2/Conv_1/Relu6`;
/** Mid-level blocks (stride 16; 136 and 224 channels) whose descriptors join the last map's in the embedding. */
export const MOBILENET_V2_MID_BLOCK_12 = `${PREFIX}MobilenetV2/expanded_conv_12/add`;
export const MOBILENET_V2_MID_BLOCK_14 = `${PREFIX}MobilenetV2/expanded_conv_14/add`;
/** The maps the search embedding pools, in this order (embedding-info.ts). */
export const EMBEDDING_OUTPUTS = [MOBILENET_V2_MID_CONV, MOBILENET_V2_MID_BLOCK_12, MOBILENET_V2_MID_BLOCK_14] as const;

/**
 * Largest batch one session call takes. It bounds the memory of one call, and on one thread a call of 12–16 views
 * of 288×224 cost up to twice as much CPU per view as one of 8 (the layers' activations outgrow the caches): a
 * scenario with two views of one size (the fashion scenarios' mirror image) makes two calls of 8 from the pool's
 * batches of 8 pictures, not one of 16 (docs/benchmarks.md, "Embedding cost").
 */
export const MAX_BATCH = 8;

/** The backbone bundle inside the installed nsfwjs package. */
export function backboneFile(): string {
  return resolveModelFile('pkg:nsfwjs/dist/models/mobilenet_v2_mid/model.min.js', '.');
}

/** The backbone cut at `outputs`, any batch, height and width (the layers below must be convolutional). */
export function backboneSpec(outputs: string[]): ConversionSpec {
  return { file: backboneFile(), outputs, inputShape: [null, null, null, 3] };
}

let calibration: CalibrationSet | null = null;

/** The int8 backbone's calibration inputs: the shipped sample pictures (runtime/calibration-images.ts). */
function backboneCalibration(): CalibrationSet {
  calibration ??= { key: calibrationKey(), inputs: async () => (await calibrationImages()).map((img) => backboneInput([img])) };
  return calibration;
}

/**
 * Convolutions the int8 backbone keeps float: the four whose quantisation moved the final vector most
 * (quantised alone, one at a time, on held-out pictures), all linear-bottleneck projections. Keeping them
 * costs no measurable time and raises the int8-vs-float cosine from min 0.956 / mean 0.982 to 0.978 / 0.988.
 */
export const INT8_KEEP_FLOAT = ['expanded_conv_13', 'expanded_conv_1', 'expanded_conv_10', 'expanded_conv_12'].map(
  (block) => `node:${PREFIX}MobilenetV2/${block}/project/BatchNorm/FusedBatchNormV3`,
);

/** The int8 (QDQ) version of the backbone cut at `outputs`, calibrated on the shipped sample pictures. */
export function quantisedBackboneSpec(outputs: string[]): QuantisationSpec {
  return { conversion: backboneSpec(outputs), calibration: backboneCalibration(), keepFloat: INT8_KEEP_FLOAT };
}

/** A session on the backbone cut at `outputs`, in the configured precision (IRIS_BACKBONE_PRECISION). */
export function backboneSession(outputs: string[], precision = backbonePrecision()) {
  return precision === 'int8' ? quantisedSession(quantisedBackboneSpec(outputs)) : convertedSession(backboneSpec(outputs));
}

/** Loads the model now (a thread can warm up before its first request). */
export async function warmUpBackbone(): Promise<void> {
  await backboneSession([...EMBEDDING_OUTPUTS]);
}

/** NHWC float input (pixels scaled to 0..1, as the model was trained) for images of one size. */
export function backboneInput(images: RgbImage[]): InstanceType<typeof ort.Tensor> {
  const { width, height } = images[0]!;
  const plane = width * height * 3;
  const data = new Float32Array(images.length * plane);
  images.forEach((img, n) => {
    for (let i = 0; i < plane; i++) data[n * plane + i] = img.data[i]! / 255;
  });
  return new ort.Tensor('float32', data, [images.length, height, width, 3]);
}

/** Groups of indices of images sharing a size, at most MAX_BATCH each. */
export function sizeGroups(images: RgbImage[]): number[][] {
  const groups = new Map<string, number[][]>();
  images.forEach((img, i) => {
    const key = `${img.width}x${img.height}`;
    const list = groups.get(key) ?? [];
    const last = list[list.length - 1];
    if (last && last.length < MAX_BATCH) last.push(i);
    else list.push([i]);
    groups.set(key, list);
  });
  return [...groups.values()].flat();
}

/** Splits a batch output [N, H, W, C] into one feature map per image. */
export function splitMaps(t: InstanceType<typeof ort.Tensor>): FeatureMap[] {
  const [n, height, width, channels] = t.dims as [number, number, number, number];
  const data = t.data as Float32Array;
  const size = height * width * channels;
  return Array.from({ length: n }, (_, i) => ({ data: data.subarray(i * size, (i + 1) * size), height, width, channels }));
}

/** Feature maps of several images (each any size ≥ 32 px), same-size images batched together, in `precision`. */
export async function featureMaps(images: RgbImage[], precision = backbonePrecision()): Promise<FeatureMap[]> {
  return (await layerMaps(images, [MOBILENET_V2_MID_CONV], precision)).map((maps) => maps[0]!);
}

/** For each image, its maps at `outputs` (in that order), from one backbone run per batch, in `precision`. */
export async function layerMaps(images: RgbImage[], outputs: readonly string[] = EMBEDDING_OUTPUTS, precision = backbonePrecision()): Promise<FeatureMap[][]> {
  const session = await backboneSession([...outputs], precision);
  const maps: FeatureMap[][] = images.map(() => []);
  for (const group of sizeGroups(images)) {
    const out = await session.run({ [session.inputNames[0]!]: backboneInput(group.map((i) => images[i]!)) });
    outputs.forEach((name, o) => splitMaps(out[name]!).forEach((map, k) => (maps[group[k]!]![o] = map)));
  }
  return maps;
}
