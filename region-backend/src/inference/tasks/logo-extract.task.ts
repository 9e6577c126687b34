/** Keypoints and descriptors of one reference logo (registration of brands through the operator API). */
import { referenceFeatures, type ReferenceFeatures, type RgbaImage } from '../../vision/logo/logo-features.js';
import { cvError, opencv } from '../../vision/runtime/opencv-runtime.js';

export interface LogoExtractPayload {
  image: RgbaImage;
}

export default async function logoExtractTask(payload: LogoExtractPayload): Promise<ReferenceFeatures> {
  const { cv } = await opencv();
  try {
    return referenceFeatures(cv, payload.image);
  } catch (err) {
    if (err instanceof Error && err.name === 'ReferenceImageError') throw err;
    throw cvError(cv, err);
  }
}
