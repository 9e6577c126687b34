/** Text recognition v1.0 (_0000154): every line of text with its box; `type` is the text itself. */
import type { AnalysisHandler } from '../analysis-registry.js';
import { readText } from './ocr-pipeline.js';
import { assembleLines, readingFrame, type TextLine } from '../../../vision/ocr/text-lines.js';

/** Below 8 pixels no text can be read; the detector needs at least one 32-pixel cell anyway. */
export const OCR_MIN_SIDE = 8;

export interface TextItem {
  box: [number, number, number, number];
  score: number;
  type: string;
}

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

/** A line as the specification's text item: box `[x, y, w, h]` normalised to the image. */
export function textItem(line: TextLine, width: number, height: number): TextItem {
  const left = Math.max(0, line.left) / width;
  const top = Math.max(0, line.top) / height;
  const right = Math.min(width, line.right) / width;
  const bottom = Math.min(height, line.bottom) / height;
  return { box: [round(left), round(top), round(right - left), round(bottom - top)], score: round(line.score), type: line.text };
}

export const ocrTextHandler: AnalysisHandler<'detect'> = {
  serviceId: '_0000154',
  envelope: 'detect',
  minSide: OCR_MIN_SIDE,
  async run(ctx, input) {
    const { width, height } = input.rgb;
    const page = readingFrame(await readText(ctx.pool, input.rgb), width, height);
    const lines = assembleLines(page.boxes).map(page.toImage);
    return { boxes_detected: lines.map((line) => textItem(line, width, height)) };
  },
};
