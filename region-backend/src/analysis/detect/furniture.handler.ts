/**
 * Furniture detection v3.0 (_0000171). The default detector knows COCO classes; those that are honestly one
 * of the service's labels are mapped (couch → sofa, dining table → table, …). The other 19 labels need an
 * operator-supplied detector (stage `furniture-detector`) trained on them; its label ids pass through.
 */
import { FURNITURE_LABELS, labelIndex } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { DETECT_MIN_SIDE, OBJECT_MIN_SCORE } from './detect-limits.js';
import { detect, mapDetections, OBJECT_STAGE, sharedImage } from './vision-calls.js';

export const FURNITURE_STAGE = 'furniture-detector';
const LABELS = labelIndex(FURNITURE_LABELS);

/** COCO class → furniture label. Not mapped: tv (a TV is not a TV cabinet), bench (not a bed bench). */
export const COCO_TO_FURNITURE: Readonly<Record<string, string>> = {
  couch: 'sofa',
  chair: 'chair',
  bed: 'bed',
  dining_table: 'table',
  toilet: 'toilet',
  sink: 'sink',
};

export const furnitureHandler: AnalysisHandler = {
  serviceId: '_0000171',
  envelope: 'detect',
  minSide: DETECT_MIN_SIDE,
  async run(ctx, input) {
    const dets = await detect(ctx, { stage: FURNITURE_STAGE, fallback: OBJECT_STAGE, image: sharedImage(input.rgb) });
    return { boxes_detected: mapDetections(dets, LABELS, COCO_TO_FURNITURE, OBJECT_MIN_SCORE, input.lang) };
  },
};
