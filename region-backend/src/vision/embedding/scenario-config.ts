/**
 * What each search scenario means for the embedding: which views of the image the backbone sees. Every
 * scenario uses the same backbone, pooling and whitening, so all vectors live in one space of EMBEDDING_DIM
 * dimensions and EMBEDDING_VERSION covers them all; scenarios differ only in the views averaged (measured in
 * `npm run eval -- embedding`, table "scenarios"). No model import: readable from the main thread.
 */
import { SCENARIO_EMBEDDINGS, SCENARIOS, isScenario, type Scenario, type ScenarioEmbedding } from '@iris/shared';
import type { ViewSpec } from './image-views.js';

export interface ScenarioConfig {
  views: ViewSpec[];
  /** One line for the documentation. */
  summary: string;
}

const WHOLE: ViewSpec = { size: 224, fit: 'aspect' };
const WHOLE_AND_MIRROR: ViewSpec[] = [WHOLE, { ...WHOLE, flip: true }];

const general: ScenarioConfig = { views: [WHOLE], summary: 'whole image, aspect ratio kept, shorter side 224 px' };

// Products are photographed both ways round and sit in the middle of the frame: the mirror view makes the
// vector left/right invariant, the centre view weights the product over the background.
const fashion: ScenarioConfig = {
  views: [...WHOLE_AND_MIRROR, { size: 224, fit: 'aspect', centre: 0.75 }],
  summary: 'whole image + its mirror + the central 75 % (product-centred, left/right invariant)',
};

// Material and texture: more pixels on the surface itself, from the centre of the image.
const material: ScenarioConfig = {
  views: [{ size: 320, fit: 'aspect', centre: 0.7 }, WHOLE],
  summary: 'central 70 % at 320 px (finer texture) + whole image',
};

/** The views of each embedding the catalogue maps scenarios to (`SCENARIO_EMBEDDINGS`). */
export const EMBEDDING_CONFIGS: Record<ScenarioEmbedding, ScenarioConfig> = { general, product: fashion, material };

/** The configuration of a scenario; unknown or missing scenarios embed as `general`. */
export function scenarioConfig(scenario: string | undefined): ScenarioConfig {
  return scenario && isScenario(scenario) ? EMBEDDING_CONFIGS[SCENARIO_EMBEDDINGS[scenario]] : general;
}

/** Views of a scenario; unknown or missing scenarios embed as `general`. */
export function scenarioViews(scenario: string | undefined): ViewSpec[] {
  return scenarioConfig(scenario).views;
}

/** Every scenario with its configuration (scenarios of one embedding share it). */
export const SCENARIO_CONFIGS: Record<Scenario, ScenarioConfig> = Object.fromEntries(SCENARIOS.map((s) => [s, scenarioConfig(s)])) as Record<Scenario, ScenarioConfig>;
