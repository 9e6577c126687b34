/**
 * The TensorFlow.js parts Iris uses, as one namespace: core (tensors, ops, model IO), graph-model loading
 * (converter) and layers-model loading (layers). The `@tensorflow/tfjs` umbrella would add the WebGL and
 * data packages, which a server never uses.
 */
// Tensor methods (`t.toFloat()`, `t.slice()`…), which the umbrella package registers.
import '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops';

export * from '@tensorflow/tfjs-core';
export { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
export { loadLayersModel, model, type LayersModel, type SymbolicTensor } from '@tensorflow/tfjs-layers';
