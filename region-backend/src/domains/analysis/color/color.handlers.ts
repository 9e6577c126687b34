/** The three colour services: same palette extraction and naming, different pixels analysed. */
import type { AnalysisHandler, AnyAnalysisHandler } from '../analysis-registry.js';
import type { ColorMode } from '../../../vision/color/color-pipeline.js';
import { parseColorParams } from './color-params.js';
import { colorItem, selectColors } from './color-result.js';

export const COLOR_TASK = 'color-palette';

function colorHandler(serviceId: string, mode: ColorMode): AnalysisHandler<'color'> {
  return {
    serviceId,
    envelope: 'color',
    validate: (params) => void parseColorParams(params),
    async run(ctx, input) {
      const { granularity, returnType } = parseColorParams(input.params);
      const { rgb } = input;
      // A copy moves to the worker thread; the caller keeps its pixels.
      const image = { data: rgb.data.slice(), width: rgb.width, height: rgb.height };
      const result = await ctx.pool.run(COLOR_TASK, { image, mode }, { transfer: [image.data.buffer] });
      return { results: selectColors(result.palette, granularity).map((c) => colorItem(c, returnType, input.lang)) };
    },
  };
}

export const colorEverythingHandler = colorHandler('_0000072', 'everything');
export const colorForegroundHandler = colorHandler('_0000073', 'foreground');
export const colorOutfitHandler = colorHandler('_0000074', 'person_outfit');

export const COLOR_HANDLERS: AnyAnalysisHandler[] = [colorEverythingHandler, colorForegroundHandler, colorOutfitHandler];
