import type { RgbImage } from '../../analysis/analysis-registry.js';
import { analyseDressing, type DressingItem } from '../../analysis/dressing/dressing-pipeline.js';

/** Garments (class, box, textures, palette) of the people in a picture. */
export default function dressingAnalyse(payload: unknown): Promise<{ items: DressingItem[] }> {
  const { image } = payload as { image: RgbImage };
  return analyseDressing(image);
}
