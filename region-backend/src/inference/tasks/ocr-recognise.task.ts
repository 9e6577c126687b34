/** Text recognition of upright strips, with the optional 180° direction check first. */
import type { RgbImage } from '../../images/rgb-image.js';
import { recogniseStrips, upsideDown } from '../../vision/ocr/ocr-stages.js';
import { rotate180 } from '../../vision/ocr/line-crop.js';

export interface OcrRecognisePayload {
  strips: RgbImage[];
  /** Run the direction classifier and turn strips it finds upside down. */
  checkDirection: boolean;
}

export interface OcrRecognised {
  text: string;
  score: number;
  /** The strip was read turned by 180°. */
  flipped: boolean;
}

export default async function ocrRecognise(payload: OcrRecognisePayload): Promise<OcrRecognised[]> {
  const flipped = payload.checkDirection ? await upsideDown(payload.strips) : payload.strips.map(() => false);
  const strips = payload.strips.map((s, i) => (flipped[i] ? rotate180(s) : s));
  const decoded = await recogniseStrips(strips);
  return decoded.map((d, i) => ({ text: d.text, score: d.score, flipped: flipped[i] ?? false }));
}
