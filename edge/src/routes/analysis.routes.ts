import { Hono } from 'hono';
import { ApiError, isAnalysisServiceId } from '@iris/shared';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

/** Type words of the specification; old clients use others for the same ids, so routing is by service id. */
const ANALYSIS_WORDS = new Set(['detect', 'classify', 'color', 'dressing']);

const analysis = proxy({ analysisParam: 'serviceId' });
const other = proxy();

/**
 * `/{word}/{service_id}`: a catalogue id is checked against the region's catalogue (404/1001) and the
 * account's grants (403/2005); an unknown id under an analysis word is an unknown service; anything else
 * with this shape (`/bad_cases/_0000204`, `/get_image_sets/_0000014`) goes to the backend as is.
 */
export const analysisRoutes = new Hono<AppEnv>().all('/:word/:serviceId{_[0-9]{7}}', async function analysisCall(c, next) {
  const { word, serviceId } = c.req.param();
  if (isAnalysisServiceId(serviceId)) return analysis(c, next);
  if (ANALYSIS_WORDS.has(word)) throw new ApiError('classifyServiceUnknown', `service ${serviceId} does not exist`);
  return other(c, next);
});
