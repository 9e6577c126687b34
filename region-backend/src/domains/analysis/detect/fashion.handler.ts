/**
 * Fashion detection v2.0 (_0000173). The default detector knows COCO classes, of which only bags are one of
 * the service's labels (handbag → shoulder-handbag, backpack → backpacks); garments, shoes and accessories
 * need an operator-supplied detector (stage `fashion-detector`) trained on them; its label ids pass through.
 */
import { FASHION_DETECT_LABELS } from '@iris/shared';
import { objectDetectHandler } from './object-detect.handler.js';

export const FASHION_STAGE = 'fashion-detector';

/** COCO class → fashion label. Not mapped: tie (no tie label), suitcase and umbrella (luggage, not fashion). */
export const COCO_TO_FASHION: Readonly<Record<string, string>> = {
  handbag: 'shoulder-handbag',
  backpack: 'backpacks',
};

export const fashionHandler = objectDetectHandler({ serviceId: '_0000173', stage: FASHION_STAGE, labels: FASHION_DETECT_LABELS, fromDetector: COCO_TO_FASHION });
