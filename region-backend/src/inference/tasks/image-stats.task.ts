/** Whole-picture colour, brightness and texture statistics (pixel loops belong on a worker thread). */
import { imageStats, type ImageStats } from '../../vision/classify/image-stats.js';
import type { Rgb } from '../../vision/runtime/pixels.js';

export default function imageStatsTask(input: unknown): ImageStats {
  return imageStats((input as { image: Rgb }).image);
}
