/**
 * Runs the model a manifest names behind one call: float input tensor in, named float outputs out. ONNX
 * files and TFJS graph models (converted to ONNX, see vision/runtime/converted-model.ts) run on ONNX Runtime;
 * only TFJS layers models still need TensorFlow.js. Loaded once per thread and file.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type * as tfTypes from '@tensorflow/tfjs';
import type { ModelManifest } from './model-manifest.js';
import { limitSide, resizeRgb, toInputTensor, type InputTensor } from './pixels.js';

export interface OutputTensor {
  data: Float32Array;
  dims: number[];
}

export interface ManifestModel {
  /** Output names in the order `run` returns them (the manifest's `outputNames`, else the model's own). */
  readonly outputNames: string[];
  run(input: InputTensor): Promise<OutputTensor[]>;
}

const loaded = new Map<string, Promise<ManifestModel>>();

// TFJS layers models (operator manifests only; the pack has none) still run on TensorFlow.js, imported on
// first use so a thread that does not need it never loads it.
async function tfjsLayersModel(manifest: ModelManifest): Promise<ManifestModel> {
  const { loadLayersModelFile, tfjs } = await import('./tfjs.js').catch((err: unknown) => {
    throw new Error(`${manifest.file}: TFJS layers models need @tensorflow/tfjs and @tensorflow/tfjs-backend-wasm installed (${String(err)}); convert the model to ONNX instead`);
  });
  const tf = await tfjs();
  const model = await loadLayersModelFile(manifest.file);
  const outputNames = manifest.outputNames ?? model.outputs.map((o) => o.name);
  return {
    outputNames,
    async run(input) {
      const x = manifest.inputType === 'int32' ? tf.tensor(Int32Array.from(input.data), input.dims, 'int32') : tf.tensor(input.data, input.dims, 'float32');
      try {
        const out = model.predict(x) as tfTypes.Tensor | tfTypes.Tensor[];
        const list = Array.isArray(out) ? out : [out];
        try {
          return await Promise.all(list.map(async (t) => ({ data: Float32Array.from(await t.data()), dims: [...t.shape] })));
        } finally {
          tf.dispose(list);
        }
      } finally {
        x.dispose();
      }
    },
  };
}

async function onnxModel(manifest: ModelManifest): Promise<ManifestModel> {
  const { onnxSession, ort } = await import('./onnx.js');
  let session: Awaited<ReturnType<typeof onnxSession>>;
  if (manifest.runtime === 'tfjs-graph') {
    // TFJS graphs run on ONNX Runtime through their cached conversion, cut at the manifest's outputs.
    const { convertedModel } = await import('./converted-model.js');
    const { tfjsGraphOutputs } = await import('../convert/tfjs-artifacts.js');
    const spec = { file: manifest.file, outputs: manifest.outputNames ?? tfjsGraphOutputs(manifest.file) };
    const converted = convertedModel(spec);
    session = await onnxSession(converted.file, () => converted.bytes);
  } else {
    session = await onnxSession(manifest.file);
  }
  const inputName = manifest.inputName ?? session.inputNames[0];
  if (!inputName) throw new Error(`${manifest.file} has no input`);
  const outputNames = manifest.outputNames ?? [...session.outputNames];
  return {
    outputNames,
    async run(input) {
      const tensor = manifest.inputType === 'int32' ? new ort.Tensor('int32', Int32Array.from(input.data), input.dims) : new ort.Tensor('float32', input.data, input.dims);
      const result = await session.run({ [inputName]: tensor }, outputNames);
      return outputNames.map((name) => {
        const t = result[name];
        if (!t) throw new Error(`${manifest.file} did not produce output ${name}`);
        const data = t.data instanceof Float32Array ? t.data : Float32Array.from(t.data as ArrayLike<number>, Number);
        return { data, dims: [...t.dims] };
      });
    },
  };
}

/** The model of a manifest, loaded once per thread (keyed by runtime, file and outputs). */
export function loadManifestModel(manifest: ModelManifest): Promise<ManifestModel> {
  const key = JSON.stringify([manifest.runtime, manifest.file, manifest.inputName, manifest.outputNames]);
  let model = loaded.get(key);
  if (!model) {
    model = manifest.runtime === 'tfjs-layers' ? tfjsLayersModel(manifest) : onnxModel(manifest);
    model.catch(() => loaded.delete(key));
    loaded.set(key, model);
  }
  return model;
}

/** Brings images to a manifest's input size (`stretch`, `fit` or `letterbox`) and converts them into its input tensor. */
export function manifestInput(images: RgbImage[], manifest: ModelManifest): InputTensor {
  const [width, height] = manifest.inputSize;
  if (manifest.resize === 'letterbox') {
    const boxed = images.map((img) => letterbox(img, width, height));
    return { ...toInputTensor(boxed.map((b) => b.image), manifest), contentWidth: boxed[0]!.contentWidth, contentHeight: boxed[0]!.contentHeight };
  }
  const sized = images.map((img) =>
    manifest.resize === 'fit' ? limitSide(img, Math.min(width, height)) : resizeRgb(img, width, height),
  );
  return toInputTensor(sized, manifest);
}

/** Scales to fit inside width × height keeping the aspect ratio, padding right and bottom with grey 114. */
export function letterbox(img: RgbImage, width: number, height: number): { image: RgbImage; contentWidth: number; contentHeight: number } {
  const scale = Math.min(width / img.width, height / img.height);
  const w = Math.max(1, Math.min(width, Math.round(img.width * scale)));
  const h = Math.max(1, Math.min(height, Math.round(img.height * scale)));
  const scaled = resizeRgb(img, w, h);
  const data = new Uint8Array(width * height * 3).fill(114);
  for (let y = 0; y < h; y++) data.set(scaled.data.subarray(y * w * 3, (y + 1) * w * 3), y * width * 3);
  return { image: { data, width, height }, contentWidth: w, contentHeight: h };
}
