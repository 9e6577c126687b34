/** Every ready-made analysis handler the backend serves. Add a handler to this list to serve it. */
import { registerAnalysis, type AnyAnalysisHandler } from './analysis-registry.js';
import { COLOR_HANDLERS } from './color/color.handlers.js';
import { dressingHandler } from './dressing/dressing.handler.js';
import { VISION_DETECT_HANDLERS } from './detect/vision-detect.handlers.js';
import { VISION_CLASSIFY_HANDLERS } from './classify/vision-classify.handlers.js';
import { ocrTextHandler } from './ocr/ocr-text.handler.js';
import { ocrReceiptHandler } from './ocr/ocr-receipt.handler.js';
import { logoHandler } from './logo/logo.handler.js';

const HANDLERS: AnyAnalysisHandler[] = [...COLOR_HANDLERS, dressingHandler, ...VISION_DETECT_HANDLERS, ...VISION_CLASSIFY_HANDLERS, ocrTextHandler, ocrReceiptHandler, logoHandler];

let registered = false;

export function registerAllAnalysisServices(): void {
  if (registered) return;
  registered = true;
  for (const handler of HANDLERS) registerAnalysis(handler);
}
