/**
 * The default scene pipeline's rules: every scene label gets a score in 0..1 from evidence the default model
 * pack can see (COCO objects, people, colour/brightness/texture statistics, text boxes). Object evidence is
 * combined with a noisy-OR over detections, each counting with its detector confidence times how strongly that
 * object implies the scene; colour evidence is a linear ramp between two shares. The constants were set on
 * the evaluation photos (docs/vision-services.md); the scores are graded evidence, not calibrated
 * probabilities from a labelled scene data set (the default pack has none).
 */
import type { Box } from '../../../vision/detect/detection.js';
import type { ImageStats } from '../../../vision/classify/image-stats.js';

export interface SceneObject {
  /** COCO class id. */
  label: string;
  score: number;
  box: Box;
}

export interface SceneEvidence {
  objects: readonly SceneObject[];
  stats: ImageStats;
  /** Text found by text detection, when it ran: boxes and the share of the picture they cover. */
  text?: { boxes: number; area: number };
}

export interface SceneScore {
  id: string;
  score: number;
}

/** Detector score → confidence that the object is really there (CenterNet peaks: 0.3 weak, 0.6 certain). */
export function objectConfidence(score: number): number {
  return ramp(score, 0.2, 0.6);
}

/** 0 below `lo`, 1 above `hi`, linear between. */
export function ramp(value: number, lo: number, hi: number): number {
  return Math.max(0, Math.min(1, (value - lo) / (hi - lo)));
}

export function noisyOr(...ps: number[]): number {
  return 1 - ps.reduce((acc, p) => acc * (1 - Math.max(0, Math.min(1, p))), 1);
}

type Weights = Readonly<Record<string, number>>;

function objectEvidence(objects: readonly SceneObject[], weights: Weights): number {
  return noisyOr(...objects.map((o) => (weights[o.label] ?? 0) * objectConfidence(o.score)));
}

const INDOOR: Weights = {
  chair: 0.5, couch: 0.8, bed: 0.85, dining_table: 0.5, toilet: 0.9, tv: 0.7, laptop: 0.6, mouse: 0.6, remote: 0.6,
  keyboard: 0.6, microwave: 0.85, oven: 0.8, toaster: 0.8, sink: 0.7, refrigerator: 0.8, book: 0.4, clock: 0.4,
  vase: 0.4, potted_plant: 0.3, teddy_bear: 0.4, hair_drier: 0.8, toothbrush: 0.7, wine_glass: 0.3, cup: 0.3,
};
const OUTDOOR: Weights = {
  car: 0.7, bus: 0.8, truck: 0.7, motorcycle: 0.6, bicycle: 0.4, airplane: 0.8, train: 0.7, boat: 0.8,
  traffic_light: 0.9, fire_hydrant: 0.9, stop_sign: 0.9, parking_meter: 0.9, bench: 0.4, horse: 0.7, sheep: 0.8,
  cow: 0.8, elephant: 0.8, bear: 0.7, zebra: 0.8, giraffe: 0.8, bird: 0.4, kite: 0.9, surfboard: 0.8, skis: 0.9,
  snowboard: 0.9, frisbee: 0.5, umbrella: 0.3, sports_ball: 0.2,
};
const OBJECT_SCENES: Readonly<Record<string, Weights>> = {
  street: { car: 0.6, bus: 0.8, truck: 0.6, motorcycle: 0.6, bicycle: 0.4, traffic_light: 0.9, stop_sign: 0.9, fire_hydrant: 0.8, parking_meter: 0.8, bench: 0.3 },
  traffic: { airplane: 0.8, train: 0.9, boat: 0.7, bus: 0.6, car: 0.4, truck: 0.4, motorcycle: 0.4 },
  food: { banana: 0.8, apple: 0.8, sandwich: 0.9, orange: 0.8, broccoli: 0.85, carrot: 0.8, hot_dog: 0.9, pizza: 0.9, donut: 0.9, cake: 0.9, bowl: 0.3 },
  dining: { dining_table: 0.7, wine_glass: 0.6, fork: 0.6, knife: 0.5, spoon: 0.5, cup: 0.5, bowl: 0.4, pizza: 0.3, cake: 0.3 },
  living_room: { couch: 0.8, tv: 0.5, remote: 0.5, potted_plant: 0.2, chair: 0.2, vase: 0.2 },
  bedroom: { bed: 0.9, teddy_bear: 0.2 },
  kitchen: { oven: 0.8, microwave: 0.75, refrigerator: 0.8, toaster: 0.7, sink: 0.4 },
  bathroom: { toilet: 0.9, toothbrush: 0.6, hair_drier: 0.6, sink: 0.4 },
  office: { laptop: 0.7, keyboard: 0.8, mouse: 0.7, book: 0.2, tv: 0.2, cell_phone: 0.2 },
  sports: {
    sports_ball: 0.8, skis: 0.9, snowboard: 0.9, tennis_racket: 0.9, baseball_bat: 0.9, baseball_glove: 0.9,
    skateboard: 0.8, surfboard: 0.8, frisbee: 0.7, kite: 0.4,
  },
  animals: { bird: 0.9, cat: 0.9, dog: 0.9, horse: 0.9, sheep: 0.9, cow: 0.9, elephant: 0.9, bear: 0.9, zebra: 0.9, giraffe: 0.9 },
  pets: { cat: 0.9, dog: 0.85 },
};
const MAN_MADE: Weights = { ...INDOOR, ...OBJECT_SCENES.street, airplane: 0.5, train: 0.7, boat: 0.3 };
const WILDLIFE: Weights = { horse: 0.5, sheep: 0.5, cow: 0.5, elephant: 0.6, bear: 0.6, zebra: 0.6, giraffe: 0.6, bird: 0.4 };

export function sceneScores(evidence: SceneEvidence): SceneScore[] {
  const { objects, stats: s } = evidence;
  const scores = new Map<string, number>();
  for (const [scene, weights] of Object.entries(OBJECT_SCENES)) scores.set(scene, objectEvidence(objects, weights));

  // Indoor vs outdoor: each side's evidence, compared; no evidence either way leaves 0.5 and weak evidence
  // moves it only a little (the 0.3 prior on both sides).
  const sky = ramp(s.skyBlueTop, 0.2, 0.6);
  const vegetation = ramp(s.green, 0.15, 0.5);
  const outdoorCue = noisyOr(objectEvidence(objects, OUTDOOR), 0.8 * sky, 0.6 * vegetation, 0.4 * ramp(s.waterBottom, 0.15, 0.5));
  const indoorCue = objectEvidence(objects, INDOOR);
  const outdoor = (outdoorCue + 0.3) / (outdoorCue + indoorCue + 0.6);
  scores.set('outdoor', outdoor);
  scores.set('indoor', 1 - outdoor);
  // Landscape scenes need the picture to be outdoors, not merely undecided.
  const outside = ramp(outdoor, 0.5, 0.75);

  const manMade = objectEvidence(objects, MAN_MADE);
  scores.set('sky', 0.9 * sky);
  // Mostly dark, yet not uniformly so (lights); a very dark mean alone also counts (dusk skies).
  const night = Math.max(ramp(s.dark, 0.45, 0.75), ramp(0.3 - s.brightness, 0, 0.12)) * ramp(0.4 - s.brightness, 0, 0.2);
  scores.set('night', night);
  // Blue at night is the sky, not water.
  scores.set('sea', noisyOr(objectEvidence(objects, { boat: 0.6, surfboard: 0.5 }), 0.8 * ramp(s.waterBottom, 0.15, 0.45) * (1 - night)) * outside);
  // Sand below water, in a picture without much structure (sand-coloured buildings under a blue sky have edges).
  const shore = ramp(s.sandBottom, 0.08, 0.3) * ramp(s.waterBottom, 0.05, 0.25) * (1 - ramp(s.edges, 0.2, 0.35));
  scores.set('beach', noisyOr(objectEvidence(objects, { surfboard: 0.6, kite: 0.4, umbrella: 0.2 }), 0.75 * shore) * outside);
  scores.set('nature', noisyOr(0.85 * vegetation, objectEvidence(objects, WILDLIFE), 0.4 * sky) * (1 - manMade) * outside);
  scores.set('snow', noisyOr(objectEvidence(objects, { skis: 0.8, snowboard: 0.8 }), 0.8 * ramp(s.whiteBottom, 0.3, 0.6) * outside * (1 - ramp(s.ink, 0.05, 0.2))));

  // People: one large person is a portrait; several a group; many a crowd.
  const persons = objects.filter((o) => o.label === 'person' && o.score >= 0.25);
  const n = persons.length;
  const largest = Math.max(0, ...persons.map((p) => p.box[2] * p.box[3] * objectConfidence(p.score)));
  scores.set('portrait', n > 0 && n <= 2 ? ramp(largest, 0.08, 0.3) : 0);
  scores.set('group', n >= 3 && n <= 8 ? 0.5 + 0.05 * n : n > 8 ? 0.4 : 0);
  scores.set('crowd', n >= 6 ? Math.min(0.95, 0.4 + 0.06 * (n - 5)) : 0);

  // Documents: text boxes covering the picture when text detection ran, else paper-and-ink statistics.
  const paperInk = ramp(s.paper, 0.35, 0.7) * ramp(s.ink, 0.02, 0.1) * (1 - ramp(s.saturation, 0.15, 0.35));
  const textCue = evidence.text ? ramp(evidence.text.area, 0.05, 0.25) * ramp(evidence.text.boxes, 2, 8) : 0;
  scores.set('document', noisyOr(0.9 * textCue, 0.6 * paperInk) * (1 - 0.8 * manMade));

  return [...scores].map(([id, score]) => ({ id, score: Math.round(score * 1e4) / 1e4 })).sort((a, b) => b.score - a.score);
}

/**
 * The scenes a response lists: those at or above `minScore`, of indoor and outdoor only the likelier and only
 * from 0.6 (0.5 means no evidence); when none qualifies, the best other scene from 0.2, else nothing.
 */
export function topScenes(scores: readonly SceneScore[], minScore = 0.3, max = 5): SceneScore[] {
  const isPlace = (id: string) => id === 'indoor' || id === 'outdoor';
  const candidates = scores.filter((s) => (isPlace(s.id) ? s.score >= Math.max(minScore, 0.6) : true));
  const kept = candidates.filter((s) => s.score >= minScore).slice(0, max);
  if (kept.length) return kept;
  const fallback = scores.find((s) => !isPlace(s.id) && s.score >= 0.2);
  return fallback ? [fallback] : [];
}
