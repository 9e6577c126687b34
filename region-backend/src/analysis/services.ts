/** Every ready-made analysis handler the backend serves. Add a handler to this list to serve it. */
import { registerAnalysis, type AnalysisHandler } from './analysis-registry.js';
import { COLOR_HANDLERS } from './color/color.handlers.js';

const HANDLERS: AnalysisHandler[] = [...COLOR_HANDLERS];

let registered = false;

export function registerAllAnalysisServices(): void {
  if (registered) return;
  registered = true;
  for (const handler of HANDLERS) registerAnalysis(handler);
}
