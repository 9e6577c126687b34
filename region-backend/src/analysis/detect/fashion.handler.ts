/**
 * Fashion detection v2.0 (_0000173). The default detector knows COCO classes, of which only bags are one of
 * the service's labels (handbag → shoulder-handbag, backpack → backpacks); garments, shoes and accessories
 * need an operator-supplied detector (stage `fashion-detector`) trained on them; its label ids pass through.
 */
import { FASHION_DETECT_LABELS, labelIndex } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { DETECT_MIN_SIDE, OBJECT_MIN_SCORE } from './detect-limits.js';
import { detect, mapDetections, OBJECT_STAGE, sharedImage } from './vision-calls.js';

export const FASHION_STAGE = 'fashion-detector';
const LABELS = labelIndex(FASHION_DETECT_LABELS);

/** COCO class → fashion label. Not mapped: tie (no tie label), suitcase and umbrella (luggage, not fashion). */
export const COCO_TO_FASHION: Readonly<Record<string, string>> = {
  handbag: 'shoulder-handbag',
  backpack: 'backpacks',
};

export const fashionHandler: AnalysisHandler = {
  serviceId: '_0000173',
  envelope: 'detect',
  minSide: DETECT_MIN_SIDE,
  async run(ctx, input) {
    const dets = await detect(ctx, { stage: FASHION_STAGE, fallback: OBJECT_STAGE, image: sharedImage(input.rgb) });
    return { boxes_detected: mapDetections(dets, LABELS, COCO_TO_FASHION, OBJECT_MIN_SCORE, input.lang) };
  },
};
