import { prepareModels, type PreparedModel } from '../../vision/prepare-models.js';

/** `prepare-models`: no payload → the ONNX conversions of the pack, converted now or found intact in the cache. */
export default function prepareModelsTask(): PreparedModel[] {
  return prepareModels();
}
