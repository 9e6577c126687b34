/**
 * Pornography identification v1.0 (_0000024): both categories, Porn and Non-porn, with scores summing to 1,
 * higher first. The classifier stage (`porn-classifier`, default nsfwjs MobileNetV2) gives class
 * probabilities; its manifest's `output.categories` merges them (nsfwjs: Porn = porn + hentai; Non-porn =
 * neutral + drawing + sexy, since "sexy" covers swimwear and lingerie photos that are not pornography).
 */
import { labelText, PORN_LABELS } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { classify, PORN_STAGE, sharedImage } from '../detect/vision-calls.js';
import { mergeCategories } from '../../../vision/classify/class-scores.decoder.js';

export const pornHandler: AnalysisHandler<'classify'> = {
  serviceId: '_0000024',
  envelope: 'classify',
  async run(ctx, input) {
    const result = await classify(ctx, PORN_STAGE, sharedImage(input.rgb));
    const merged = mergeCategories(result.scores, PORN_LABELS.map((l) => l.id), result.categories);
    const total = merged.reduce((sum, c) => sum + c.score, 0);
    if (!(total > 0)) throw new Error(`porn classifier ${result.model} gave no score to ${PORN_LABELS.map((l) => l.id).join(' or ')}`);
    // Rounded to 4 decimals; the second category takes the remainder so the two still sum to exactly 1.
    const porn = Math.round((merged[1]!.score / total) * 1e4) / 1e4;
    const scores = [Math.round((1 - porn) * 1e4) / 1e4, porn];
    const results = PORN_LABELS.map((label, i) => ({ category: labelText(label, input.lang), puid: label.puid, score: scores[i]! }))
      .sort((a, b) => b.score - a.score);
    return { results };
  },
};
