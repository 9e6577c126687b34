/**
 * Furniture detection v3.0 (_0000171). The default detector knows COCO classes; those that are honestly one
 * of the service's labels are mapped (couch → sofa, dining table → table, …). The other 19 labels need an
 * operator-supplied detector (stage `furniture-detector`) trained on them; its label ids pass through.
 */
import { FURNITURE_LABELS } from '@iris/shared';
import { objectDetectHandler } from './object-detect.handler.js';

export const FURNITURE_STAGE = 'furniture-detector';

/** COCO class → furniture label. Not mapped: tv (a TV is not a TV cabinet), bench (not a bed bench). */
export const COCO_TO_FURNITURE: Readonly<Record<string, string>> = {
  couch: 'sofa',
  chair: 'chair',
  bed: 'bed',
  dining_table: 'table',
  toilet: 'toilet',
  sink: 'sink',
};

export const furnitureHandler = objectDetectHandler({ serviceId: '_0000171', stage: FURNITURE_STAGE, labels: FURNITURE_LABELS, fromDetector: COCO_TO_FURNITURE });
