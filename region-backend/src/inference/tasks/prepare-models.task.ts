import { prepareModels, type PreparedModel } from '../../vision/prepare-models.js';
import { threadStopSignal } from '../thread-stop.js';

/**
 * `prepare-models`: no payload → the ONNX conversions of the pack (and the int8 backbone), made now or found
 * intact in the cache. A thread asked to stop ends it at the next model or calibration step (it then rejects).
 */
export default function prepareModelsTask(): Promise<PreparedModel[]> {
  return prepareModels(threadStopSignal);
}
