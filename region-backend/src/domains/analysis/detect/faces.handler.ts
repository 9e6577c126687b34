/** Face detection v1.0 (_0000049): every face, labelled `face` (large pictures also searched in quarters). */
import { FACE_LABELS } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { DETECT_MIN_SIDE } from './detect-limits.js';
import { findFaces } from './face-search.js';
import { boxItem, sharedImage } from './vision-calls.js';

const FACE = FACE_LABELS[0]!;

export const facesHandler: AnalysisHandler<'detect'> = {
  serviceId: '_0000049',
  envelope: 'detect',
  minSide: DETECT_MIN_SIDE,
  async run(ctx, input) {
    const faces = await findFaces(ctx, sharedImage(input.rgb));
    return {
      boxes_detected: faces.sort((a, b) => b.score - a.score).map((f) => boxItem(f.box, FACE, f.score, input.lang)),
    };
  },
};
