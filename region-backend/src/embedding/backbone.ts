/**
 * The embedding backbone: nsfwjs MobileNetV2 (width 1.4, "Mid") read as a TFJS graph model, tapped at its
 * last convolutional feature map (`Conv_1/Relu6`, 1792 channels, stride 32) instead of its classifier.
 * The bundle declares a fixed 224×224 input; the convolutional part works at any size, so the input shape is
 * relaxed at load time to let views keep their aspect ratio or use a larger scale. Worker threads only.
 */
import type * as tfTypes from '@tensorflow/tfjs';
import { nsfwjsArtifacts, nsfwjsModelFile } from '../inference/runtime/nsfwjs-models.js';
import { tfjs } from '../inference/runtime/tfjs.js';
import type { FeatureMap } from './feature-pooling.js';

const PREFIX = 'StatefulPartitionedCall/sequential/keras_layer/StatefulPartitionedCall/StatefulPartitionedCall/StatefulPartitionedCall/predict/';
export const MOBILENET_V2_MID_CONV = `${PREFIX}MobilenetV2/Conv_1/Relu6`;

export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

interface GraphNode {
  name: string;
  op: string;
  attr?: { shape?: { shape?: { dim?: { size: string }[] } } };
}

/** Lets a graph model's placeholder accept any batch, height and width (the layers below must be convolutional). */
export function relaxInputShape(artifacts: tfTypes.io.ModelArtifacts): tfTypes.io.ModelArtifacts {
  const topology = artifacts.modelTopology as { node?: GraphNode[] } | undefined;
  for (const node of topology?.node ?? []) {
    const dims = node.op === 'Placeholder' ? node.attr?.shape?.shape?.dim : undefined;
    if (dims?.length === 4) for (let i = 0; i < 3; i++) dims[i] = { size: '-1' };
  }
  return artifacts;
}

let model: Promise<tfTypes.GraphModel> | null = null;

function backbone(): Promise<tfTypes.GraphModel> {
  if (!model) {
    model = (async () => {
      const tf = await tfjs();
      const artifacts = relaxInputShape(nsfwjsArtifacts(nsfwjsModelFile('mobilenet_v2_mid')));
      return tf.loadGraphModel(tf.io.fromMemory(artifacts));
    })();
    model.catch(() => {
      model = null;
    });
  }
  return model;
}

/** Loads the model now (a thread can warm up before its first request). */
export async function warmUpBackbone(): Promise<void> {
  await backbone();
}

/** Feature maps of several images (each any size ≥ 32 px; pixels scaled to 0..1 as the model was trained). */
export async function featureMaps(images: Rgb[]): Promise<FeatureMap[]> {
  const tf = await tfjs();
  const graph = await backbone();
  const maps: FeatureMap[] = [];
  for (const img of images) {
    const out = tf.tidy(() => {
      const x = tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32').toFloat().div(255);
      return graph.execute(x, MOBILENET_V2_MID_CONV) as tfTypes.Tensor;
    });
    try {
      const [, height, width, channels] = out.shape as [number, number, number, number];
      maps.push({ data: (await out.data()) as Float32Array, height, width, channels });
    } finally {
      out.dispose();
    }
  }
  return maps;
}
