/** Human body detection v1.0 (_0000059): every person, labelled `person` (COCO person boxes by default). */
import { BODY_LABELS, labelIndex } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { DETECT_MIN_SIDE, OBJECT_MIN_SCORE } from './detect-limits.js';
import { detect, mapDetections, OBJECT_STAGE, sharedImage } from './vision-calls.js';

export const BODY_STAGE = 'body-detector';
const LABELS = labelIndex(BODY_LABELS);

export const bodiesHandler: AnalysisHandler = {
  serviceId: '_0000059',
  envelope: 'detect',
  minSide: DETECT_MIN_SIDE,
  async run(ctx, input) {
    const dets = await detect(ctx, { stage: BODY_STAGE, fallback: OBJECT_STAGE, image: sharedImage(input.rgb) });
    return { boxes_detected: mapDetections(dets, LABELS, {}, OBJECT_MIN_SCORE, input.lang) };
  },
};
