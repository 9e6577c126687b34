import type { RgbImage } from '../../images/rgb-image.js';
import { analyseColors, type ColorMode, type PaletteResult } from '../../vision/color/color-pipeline.js';

export interface ColorPalettePayload {
  image: RgbImage;
  mode: ColorMode;
}

/** Palette of the pixels a colour service analyses (whole image, foreground or outfit). */
export default function colorPalette(payload: ColorPalettePayload): Promise<PaletteResult> {
  const { image, mode } = payload;
  return analyseColors(image, mode);
}
