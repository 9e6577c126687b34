/**
 * Text detection: finds text boxes in an RGB image and cuts each out as an upright strip already scaled
 * to the recogniser's height, so recognition can be spread over several threads.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { detectTextBoxes, recogniserInput } from '../../vision/ocr/ocr-stages.js';
import { cropQuad, toLineHeight } from '../../vision/ocr/line-crop.js';

export interface OcrDetectPayload {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface OcrDetectResult {
  /** Per box: corners [x0, y0, x1, y1, x2, y2, x3, y3] in pixels (top-left first, clockwise) and score. */
  boxes: { quad: number[]; score: number }[];
  /** The box contents as upright strips at the recogniser's input height, in the order of `boxes`. */
  strips: RgbImage[];
}

export default async function ocrDetect(payload: OcrDetectPayload): Promise<OcrDetectResult> {
  const img: RgbImage = { data: payload.data, width: payload.width, height: payload.height };
  const boxes = await detectTextBoxes(img);
  const { height, maxWidth } = recogniserInput();
  return {
    boxes: boxes.map((b) => ({ quad: b.quad.flatMap((p) => [p.x, p.y]), score: b.score })),
    strips: boxes.map((b) => toLineHeight(cropQuad(img, b.quad), height, maxWidth)),
  };
}
