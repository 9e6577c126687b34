/**
 * Receipt text recognition v1.0 (_0000143): the merchant number, terminal number, card-network merchant
 * number and amount of a card payment slip, always all four in that order (value null when not found).
 */
import type { AnalysisHandler } from '../analysis-registry.js';
import { readText } from './ocr-pipeline.js';
import { extractReceiptFields } from './receipt-fields.js';
import { OCR_MIN_SIDE } from './ocr-text.handler.js';
import { groupRows, readingFrame } from '../../../vision/ocr/text-lines.js';

export const ocrReceiptHandler: AnalysisHandler<'detect'> = {
  serviceId: '_0000143',
  envelope: 'detect',
  minSide: OCR_MIN_SIDE,
  async run(ctx, input) {
    const { boxes } = readingFrame(await readText(ctx.pool, input.rgb), input.rgb.width, input.rgb.height);
    // A label and its value may sit far apart on one printed row: fields are read per row, not per line.
    const rows = groupRows(boxes).map((row) => row.map((box) => box.text).join(' '));
    return { boxes_detected: extractReceiptFields(rows) };
  },
};
