/**
 * Scene identification v1.0 (_0000039). Default pipeline: scene rules (scene-rules.ts) over objects, people,
 * text and picture statistics, answering labels of the published scene list (shared SCENE_LABELS). When the
 * operator configures a `scene-classifier` stage (e.g. a Places365 ONNX model), that model's classes are
 * answered instead, with the texts and ids of its manifest labels.
 */
import { labelIndex, labelText, SCENE_LABELS } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import { hasOverride } from '../../../vision/runtime/model-config.js';
import { classify, sharedImage } from '../detect/vision-calls.js';
import { gatherEvidence } from './scene-evidence.js';
import { sceneScores, topScenes } from './scene-rules.js';

export const SCENE_CLASSIFIER_STAGE = 'scene-classifier';
const LABELS = labelIndex(SCENE_LABELS);
const MAX_RESULTS = 5;

export const sceneHandler: AnalysisHandler<'classify'> = {
  serviceId: '_0000039',
  envelope: 'classify',
  async run(ctx, input) {
    const image = sharedImage(input.rgb);
    if (hasOverride(SCENE_CLASSIFIER_STAGE)) {
      const result = await classify(ctx, SCENE_CLASSIFIER_STAGE, image);
      const texts = new Map(result.labels.map((l) => [l.id, l]));
      const ranked = [...result.scores].sort((a, b) => b.score - a.score).slice(0, MAX_RESULTS);
      return {
        results: ranked.map((s) => {
          const label = texts.get(s.id) ?? { en: s.id, zh: s.id };
          return { category: labelText(label, input.lang), puid: `scene.${s.id}`, score: Math.round(s.score * 1e4) / 1e4 };
        }),
      };
    }
    const evidence = await gatherEvidence(ctx, image, { text: 'document-like' });
    return {
      results: topScenes(sceneScores(evidence), 0.3, MAX_RESULTS).map((s) => {
        const label = LABELS.get(s.id)!;
        return { category: labelText(label, input.lang), puid: label.puid, score: s.score };
      }),
    };
  },
};
