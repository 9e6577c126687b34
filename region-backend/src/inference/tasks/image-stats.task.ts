/** Whole-picture colour, brightness and texture statistics (pixel loops belong on a worker thread). */
import type { RgbImage } from '../../images/rgb-image.js';
import { imageStats, type ImageStats } from '../../vision/classify/image-stats.js';

export default function imageStatsTask(input: unknown): ImageStats {
  return imageStats((input as { image: RgbImage }).image);
}
