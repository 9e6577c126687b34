/** Picks the decoder a detector manifest names (`output.type`) and validates its options. */
import type { ModelManifest } from '../runtime/model-manifest.js';
import type { OutputTensor } from '../runtime/manifest-model.js';
import { boxesOptions, decodeBoxes } from './boxes.decoder.js';
import { centernetOptions, decodeCenternet } from './centernet.decoder.js';
import type { Detection } from './detection.js';
import { decodeYolo, yoloOptions } from './yolo.decoder.js';

export const DETECTOR_DECODERS = ['centernet', 'boxes', 'yolo'] as const;

export function decodeDetector(manifest: ModelManifest, outputs: OutputTensor[], inputWidth: number, inputHeight: number): Detection[] {
  switch (manifest.output.type) {
    case 'centernet':
      return decodeCenternet(outputs, inputWidth, inputHeight, centernetOptions.parse(manifest.output));
    case 'boxes':
      return decodeBoxes(outputs, inputWidth, inputHeight, boxesOptions.parse(manifest.output));
    case 'yolo':
      return decodeYolo(outputs, inputWidth, inputHeight, yoloOptions.parse(manifest.output));
    default:
      throw new Error(`manifest ${manifest.name}: detector output type ${manifest.output.type} is not one of ${DETECTOR_DECODERS.join(', ')}`);
  }
}
