/**
 * Fashion analysis (_0000111): garments of the people in the picture (person parsing + rules), items the
 * detector of fashion detection finds (bags with the default pack), their colours, textures and style tags.
 */
import { BASIC_COLORS, fashionItem, fashionTexture, type Lang } from '@iris/shared';
import type { AnalysisHandler, EnvelopeFields } from '../analysis-registry.js';
import type { ColorCluster } from '../../../vision/color/color-clustering.js';
import { nearestIsccNbs, nearestW3c } from '../../../vision/color/color-names.js';
import { labToLch, labToRgb } from '../../../vision/color/color-space.js';
import { ncsNotation } from '../../../vision/color/ncs-notation.js';
import { FASHION_STAGE } from '../detect/fashion.handler.js';
import { detect, OBJECT_STAGE, sharedImage } from '../detect/vision-calls.js';
import type { DetectedObject, DressingItem } from '../../../vision/dressing/dressing-pipeline.js';
import { detectorItem, RULE_ITEMS } from './detector-items.js';
import { styleLabels, type StyledItem } from './style-labels.js';

export const DRESSING_TASK = 'dressing-analyse';

/** Colours of an item: up to three holding at least 10 % of it, shares renormalised over them. */
export const ITEM_COLORS = 3;
export const ITEM_COLOR_MIN_SHARE = 0.1;

function itemColors(palette: ColorCluster[]): ColorCluster[] {
  const chosen = palette.slice(0, ITEM_COLORS).filter((c, i) => i === 0 || c.weight >= ITEM_COLOR_MIN_SHARE);
  const total = chosen.reduce((s, c) => s + c.weight, 0);
  return chosen.map((c) => ({ lab: c.lab, weight: Math.round((c.weight / total) * 1e4) / 1e4 }));
}

export function dressingResult(items: DressingItem[], _lang: Lang): EnvelopeFields['dressing'] {
  const styled: StyledItem[] = [];
  const results = items.map((it) => {
    const label = fashionItem(it.item) ?? { en: it.item, zh: it.item };
    const textures = it.textures.map((t) => fashionTexture(t) ?? { en: t, zh: t });
    const colors = itemColors(it.palette);
    styled.push({
      item: it.item,
      textures: it.textures,
      colors: colors.map((c) => ({ basic: nearestIsccNbs(c.lab).basic, chroma: labToLch(c.lab)[1], share: c.weight })),
    });
    return {
      box: it.box,
      item: label.zh,
      'item-en': label.en,
      textures: textures.map((t) => t.zh),
      'textures-en': textures.map((t) => t.en),
      colors: colors.map((c) => {
        const basic = BASIC_COLORS[nearestIsccNbs(c.lab).basic];
        const w3c = nearestW3c(c.lab);
        return {
          'basic-cn': basic.zh,
          'basic-en': basic.en,
          'w3c-cn': w3c.zh,
          'w3c-en': w3c.name,
          ncs: ncsNotation(c.lab),
          percent: c.weight,
          rgb: labToRgb(...c.lab),
        };
      }),
    };
  });
  const labels = styleLabels(styled);
  return { labels: labels.map((l) => l.zh), 'labels-en': labels.map((l) => l.en), results };
}

/** Detections below this score are not reported as items. */
export const OBJECT_ITEM_MIN_SCORE = 0.35;

export const dressingHandler: AnalysisHandler<'dressing'> = {
  serviceId: '_0000111',
  envelope: 'dressing',
  async run(ctx, input) {
    // Shared pixels: the garment pipeline and the detector read the same picture on two threads at once.
    const image = sharedImage(input.rgb);
    const [people, detections] = await Promise.all([
      ctx.pool.run(DRESSING_TASK, { image }),
      detect(ctx, { stage: FASHION_STAGE, fallback: OBJECT_STAGE, image, minScore: OBJECT_ITEM_MIN_SCORE }),
    ]);
    const objects: DetectedObject[] = [];
    for (const d of detections) {
      const item = detectorItem(d.label);
      if (item && !RULE_ITEMS.has(item)) objects.push({ item, box: d.box });
    }
    const items = [...people.items];
    if (objects.length) items.push(...(await ctx.pool.run(DRESSING_TASK, { image, objects })).items);
    return dressingResult(items, input.lang);
  },
};
