/**
 * A detect service over object detection: its own stage when an operator configured one (its label ids pass
 * through), else the default object detector, whose classes are mapped onto the service's labels.
 */
import { labelIndex, type ServiceLabel } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { DETECT_MIN_SIDE, OBJECT_MIN_SCORE } from './detect-limits.js';
import { detect, mapDetections, OBJECT_STAGE, sharedImage } from './vision-calls.js';

export function objectDetectHandler(options: {
  serviceId: string;
  stage: string;
  labels: readonly ServiceLabel[];
  /** Default-detector class → service label id. */
  fromDetector: Readonly<Record<string, string>>;
}): AnalysisHandler<'detect'> {
  const labels = labelIndex(options.labels);
  return {
    serviceId: options.serviceId,
    envelope: 'detect',
    minSide: DETECT_MIN_SIDE,
    async run(ctx, input) {
      const dets = await detect(ctx, { stage: options.stage, fallback: OBJECT_STAGE, image: sharedImage(input.rgb) });
      return { boxes_detected: mapDetections(dets, labels, options.fromDetector, OBJECT_MIN_SCORE, input.lang) };
    },
  };
}
