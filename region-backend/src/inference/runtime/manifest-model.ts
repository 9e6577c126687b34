/**
 * Runs the model a manifest names, whatever its runtime (ONNX, TFJS graph, TFJS layers, nsfwjs bundles),
 * behind one call: float input tensor in, named float outputs out. Loaded once per thread and file.
 */
import type * as tfTypes from '@tensorflow/tfjs';
import type { ModelManifest } from '../../analysis/model-manifest.js';
import { limitSide, resizeRgb, toInputTensor, type InputTensor, type Rgb } from './pixels.js';

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

// Runtimes are imported on first use so a thread only pays for the ones its models need.
async function tfjsModel(manifest: ModelManifest): Promise<ManifestModel> {
  const { loadGraphModelFile, loadLayersModelFile, tfjs } = await import('./tfjs.js');
  const { loadNsfwjsModel } = await import('./nsfwjs-models.js');
  const tf = await tfjs();
  const bundle = manifest.file.endsWith('.min.js');
  const model: tfTypes.GraphModel | tfTypes.LayersModel = bundle
    ? await loadNsfwjsModel(manifest.file)
    : manifest.runtime === 'tfjs-graph'
      ? await loadGraphModelFile(manifest.file)
      : await loadLayersModelFile(manifest.file);
  const isGraph = 'executeAsync' in model;
  let needsAsync = false;
  const outputNames = manifest.outputNames ?? model.outputs.map((o) => o.name);
  return {
    outputNames,
    async run(input) {
      const x = manifest.inputType === 'int32' ? tf.tensor(Int32Array.from(input.data), input.dims, 'int32') : tf.tensor(input.data, input.dims, 'float32');
      try {
        let out: tfTypes.Tensor | tfTypes.Tensor[] = [];
        if (isGraph) {
          const graph = model as tfTypes.GraphModel;
          const feed = manifest.inputName ? { [manifest.inputName]: x } : x;
          const names = manifest.outputNames;
          if (!needsAsync) {
            try {
              out = names ? graph.execute(feed, names) : graph.execute(feed);
            } catch (err) {
              // Graphs with control flow (e.g. NMS loops inside SSD-style detectors) only run asynchronously.
              if (!/executeAsync/.test(String(err))) throw err;
              needsAsync = true;
            }
          }
          if (needsAsync) out = names ? await graph.executeAsync(feed, names) : await graph.executeAsync(feed);
        } else {
          out = (model as tfTypes.LayersModel).predict(x) as tfTypes.Tensor | tfTypes.Tensor[];
        }
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
  const session = await onnxSession(manifest.file);
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
    model = manifest.runtime === 'onnx' ? onnxModel(manifest) : tfjsModel(manifest);
    model.catch(() => loaded.delete(key));
    loaded.set(key, model);
  }
  return model;
}

/** Brings images to a manifest's input size (`stretch` or `fit`) and converts them into its input tensor. */
export function manifestInput(images: Rgb[], manifest: ModelManifest): InputTensor {
  const [width, height] = manifest.inputSize;
  const sized = images.map((img) =>
    manifest.resize === 'fit' ? limitSide(img, Math.min(width, height)) : resizeRgb(img, width, height),
  );
  return toInputTensor(sized, manifest);
}
