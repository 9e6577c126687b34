/** Whole-picture colour, brightness and texture statistics (pixel loops belong on a worker thread). */
import type { RgbImage } from '../../images/rgb-image.js';
import { imageStats, type ImageStats } from '../../vision/classify/image-stats.js';

export interface ImageStatsPayload {
  image: RgbImage;
}

export default function imageStatsTask(payload: ImageStatsPayload): ImageStats {
  return imageStats(payload.image);
}
