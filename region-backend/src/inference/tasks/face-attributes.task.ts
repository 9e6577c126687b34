/** Estimates gender and age for face boxes (one batch through the face-attribute stage). */
import type { RgbImage } from '../../images/rgb-image.js';
import { resolveManifest } from '../../vision/runtime/model-config.js';
import { ageGenderOptions, averageAttributes, decodeAgeGender, type FaceAttributes } from '../../vision/detect/age-gender.decoder.js';
import type { Box } from '../../vision/detect/detection.js';
import { loadManifestModel, manifestInput } from '../../vision/runtime/manifest-model.js';
import { cropNormalised, mirrorRgb } from '../../vision/runtime/pixels.js';

export interface FaceAttributesPayload {
  stage: string;
  image: RgbImage;
  faces: Box[];
  /** Age from which a face counts as adult. */
  adultAge: number;
}

export interface FaceAttributesResult {
  faces: FaceAttributes[];
  model: string;
}

export default async function faceAttributes(payload: FaceAttributesPayload): Promise<FaceAttributesResult> {
  const manifest = resolveManifest(payload.stage);
  if (!payload.faces.length) return { faces: [], model: manifest.name };
  const options = ageGenderOptions.parse(manifest.output);
  const model = await loadManifestModel(manifest);
  const { image } = payload;
  const crops = payload.faces.map(([x, y, w, h]) => {
    // A square crop around the face centre, grown so hair and chin are in view as in training crops.
    const side = Math.max(w * image.width, h * image.height) * options.faceScale;
    const cx = (x + w / 2) * image.width;
    const cy = (y + h / 2) * image.height;
    return cropNormalised(image, [(cx - side / 2) / image.width, (cy - side / 2) / image.height, side / image.width, side / image.height]).image;
  });
  const batch = options.mirror ? [...crops, ...crops.map(mirrorRgb)] : crops;
  const outputs = await model.run(manifestInput(batch, manifest));
  const faces = crops.map((_, i) => {
    const direct = decodeAgeGender(outputs, i, options, payload.adultAge);
    return options.mirror ? averageAttributes(direct, decodeAgeGender(outputs, crops.length + i, options, payload.adultAge)) : direct;
  });
  return { faces, model: manifest.name };
}
