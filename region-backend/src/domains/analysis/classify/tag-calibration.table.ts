// Written by `npm run eval -- tagging` (IRIS_TAGGING_WRITE_CALIBRATION=1): Platt scaling fitted on 80 labelled photos.
export const TAG_CALIBRATION = {
  bias: -2.7906,
  weights: { object: 2.4322, 'object-framed': 4.4672 },
};
