import { prepareModels, type PreparedModel } from '../../vision/prepare-models.js';

/** `prepare-models`: no payload → the ONNX conversions of the pack (and the int8 backbone), made now or found intact in the cache. */
export default function prepareModelsTask(): Promise<PreparedModel[]> {
  return prepareModels();
}
