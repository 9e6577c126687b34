/** Human body detection v1.0 (_0000059): every person, labelled `person` (COCO person boxes by default). */
import { BODY_LABELS } from '@iris/shared';
import { objectDetectHandler } from './object-detect.handler.js';

export const BODY_STAGE = 'body-detector';

export const bodiesHandler = objectDetectHandler({ serviceId: '_0000059', stage: BODY_STAGE, labels: BODY_LABELS, fromDetector: {} });
