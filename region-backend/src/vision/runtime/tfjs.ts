/**
 * TensorFlow.js on the wasm backend (tfjs-node does not install offline). Loaded once per worker thread.
 * Models are read from files inside installed npm packages through a small IO handler.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

const require = createRequire(import.meta.url);
let ready: Promise<typeof tf> | null = null;

/** Initialises the wasm backend once per thread (single-threaded wasm: parallelism comes from the pool). */
export function tfjs(): Promise<typeof tf> {
  if (!ready) {
    ready = (async () => {
      const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
      setWasmPaths(wasmDir + path.sep);
      await tf.setBackend('wasm');
      await tf.ready();
      return tf;
    })();
  }
  return ready;
}

/** Absolute path of a file inside an installed package (works for packages whose exports hide package.json). */
export function packageFile(pkg: string, relative: string): string {
  const parts = require.resolve.paths(pkg) ?? [];
  for (const base of parts) {
    const candidate = path.join(base, pkg, relative);
    try {
      require.resolve(candidate);
      return candidate;
    } catch {
      // try the next node_modules directory
    }
  }
  throw new Error(`file ${relative} not found in package ${pkg}`);
}

/** IO handler for a TFJS `model.json` + weight shards on disk. */
export function fileIOHandler(modelJsonPath: string): tf.io.IOHandler {
  return {
    async load() {
      const modelJson = JSON.parse(await readFile(modelJsonPath, 'utf8')) as tf.io.ModelJSON;
      const dir = path.dirname(modelJsonPath);
      const specs: tf.io.WeightsManifestEntry[] = [];
      const buffers: Buffer[] = [];
      for (const group of modelJson.weightsManifest) {
        specs.push(...group.weights);
        for (const shard of group.paths) buffers.push(await readFile(path.join(dir, shard)));
      }
      const weightData = Buffer.concat(buffers);
      return {
        modelTopology: modelJson.modelTopology,
        format: modelJson.format,
        generatedBy: modelJson.generatedBy,
        convertedBy: modelJson.convertedBy,
        userDefinedMetadata: modelJson.userDefinedMetadata,
        signature: modelJson.signature,
        weightSpecs: specs,
        weightData: weightData.buffer.slice(weightData.byteOffset, weightData.byteOffset + weightData.byteLength),
      };
    },
  };
}

export async function loadGraphModelFile(modelJsonPath: string): Promise<tf.GraphModel> {
  const t = await tfjs();
  return t.loadGraphModel(fileIOHandler(modelJsonPath));
}

export async function loadLayersModelFile(modelJsonPath: string): Promise<tf.LayersModel> {
  const t = await tfjs();
  return t.loadLayersModel(fileIOHandler(modelJsonPath));
}
