/** Which contract error each family of analysis services answers for each kind of image problem. */
import { ApiError, type ErrorKey } from '@iris/shared';
import type { Envelope } from './analysis-registry.js';

export type ImageProblem = 'missing' | 'both' | 'download' | 'too-large' | 'undecodable' | 'too-small' | 'bad-loc' | 'failed';

const DETECT_LIKE: Record<ImageProblem, ErrorKey> = {
  missing: 'detectNoImage',
  both: 'detectNoImage',
  download: 'detectDownloadFailed',
  'too-large': 'detectDownloadFailed',
  undecodable: 'detectUndecodable',
  'too-small': 'detectTooSmall',
  'bad-loc': 'analysisBadRequest',
  failed: 'internal',
};

// Colour and fashion: 400 for bad parameters or an empty query image, 408 for download, decoding or analysis failure.
const COLOR_LIKE: Record<ImageProblem, ErrorKey> = {
  missing: 'analysisBadRequest',
  both: 'analysisBadRequest',
  'bad-loc': 'analysisBadRequest',
  download: 'analysisImageFailed',
  'too-large': 'analysisImageFailed',
  undecodable: 'analysisImageFailed',
  'too-small': 'analysisImageFailed',
  failed: 'analysisImageFailed',
};

export function analysisError(envelope: Envelope, problem: ImageProblem, message: string): ApiError {
  const table = envelope === 'color' || envelope === 'dressing' ? COLOR_LIKE : DETECT_LIKE;
  return new ApiError(table[problem], message);
}
