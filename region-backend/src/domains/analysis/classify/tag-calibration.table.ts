// Written by `npm run eval -- tagging` (IRIS_TAGGING_WRITE_CALIBRATION=1): isotonic fits on 80 labelled photos.
export const TAG_CALIBRATION = {
  'object': { raw: [0.2052, 0.2273, 0.2909, 0.3917, 0.4457, 0.4695, 0.5, 0.5762, 0.7016], p: [0, 0.1786, 0.2917, 0.4444, 0.5, 0.6667, 0.75, 0.8571, 1] },
  'object-framed': { raw: [0.209, 0.2368, 0.278, 0.3432, 0.4048, 0.5104, 0.7608], p: [0, 0.0833, 0.2727, 0.3333, 0.5, 0.5909, 1] },
};
