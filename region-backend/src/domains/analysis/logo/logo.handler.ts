/**
 * Logo detection v2.0 (_0000188): instances of the brands the region's operator registered (POST /admin/logos),
 * found by matching keypoints of their reference artwork. Labels are the brand names (the Chinese name for
 * Chinese-language callers when one was given); puid `logo-<brand id>` is stable for a brand's lifetime.
 */
import type { AnalysisHandler } from '../analysis-registry.js';
import { DETECT_MIN_SIDE } from '../detect/detect-limits.js';
import { sharedImage, type DetectBoxItem } from '../detect/vision-calls.js';
import type { LogoMatchPayload } from '../../../inference/tasks/logo-match.task.js';
import { logoLibrary, type LogoBrand } from '../../logos/logo-library.js';

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

export const logoPuid = (brandId: number) => `logo-${brandId}`;

export function brandLabel(brand: LogoBrand, lang: 'en' | 'zh'): string {
  return lang === 'zh' && brand.nameZh ? brand.nameZh : brand.name;
}

export const logoHandler: AnalysisHandler<'detect'> = {
  serviceId: '_0000188',
  envelope: 'detect',
  minSide: DETECT_MIN_SIDE,
  async run(ctx, input) {
    if (!ctx.db) throw new Error('logo detection needs the region database');
    const library = await logoLibrary(ctx.db);
    if (!library.payload) return { boxes_detected: [] };
    const payload: LogoMatchPayload = { image: sharedImage(input.rgb), library: library.payload };
    const result = await ctx.pool.run('logo-match', payload);
    const items: DetectBoxItem[] = [];
    for (const d of result.detections) {
      const brand = library.brands.get(d.brandId);
      if (!brand) continue;
      items.push({ box: [round(d.box[0]), round(d.box[1]), round(d.box[2]), round(d.box[3])], puid: logoPuid(brand.id), score: round(d.score), type: brandLabel(brand, input.lang) });
    }
    return { boxes_detected: items.sort((a, b) => b.score - a.score) };
  },
};
