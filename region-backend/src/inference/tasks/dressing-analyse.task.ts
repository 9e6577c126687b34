import type { RgbImage } from '../../images/rgb-image.js';
import { analyseDressing, analyseObjects, type DetectedObject, type DressingItem } from '../../vision/dressing/dressing-pipeline.js';

export interface DressingAnalysePayload {
  image: RgbImage;
  /** When given, only these detected objects are measured (no person parsing). */
  objects?: DetectedObject[];
}

/** Garments (class, box, textures, palette) of the people in a picture, or colours/textures of detected objects. */
export async function dressingAnalyse(payload: DressingAnalysePayload): Promise<{ items: DressingItem[] }> {
  const { image, objects } = payload;
  return objects ? { items: analyseObjects(image, objects) } : analyseDressing(image);
}

export default dressingAnalyse;
