import { describe, expect, it } from 'vitest';
import { bands } from '../../../../test/support/sample-images.js';
import { imageStats } from '../../../vision/classify/image-stats.js';
import { rgbToHsv } from '../../../vision/classify/hsv.js';
import { noisyOr, objectConfidence, sceneScores, topScenes, type SceneObject } from './scene-rules.js';

const SKY: [number, number, number] = [90, 150, 230];
const GRASS: [number, number, number] = [60, 140, 50];
const SEA: [number, number, number] = [30, 90, 170];
const SAND: [number, number, number] = [220, 190, 140];
const SNOW: [number, number, number] = [245, 247, 250];

const scoreOf = (scores: { id: string; score: number }[], id: string) => scores.find((s) => s.id === id)?.score ?? 0;
const obj = (label: string, score: number, box: [number, number, number, number] = [0.4, 0.4, 0.2, 0.2]): SceneObject => ({ label, score, box });

describe('picture statistics', () => {
  it('measures sky, vegetation, water, sand, snow and basic colours where they usually are', () => {
    const land = imageStats(bands(120, 90, [SKY, GRASS, GRASS]));
    expect(land.skyBlueTop).toBeGreaterThan(0.95);
    expect(land.green).toBeCloseTo(2 / 3, 1);
    expect(land.colors[0]!.id).toBe('green');
    const beach = imageStats(bands(120, 120, [SKY, SKY, SEA, SAND]));
    expect(beach.waterBottom).toBeCloseTo(0.5, 1);
    expect(beach.sandBottom).toBeCloseTo(0.5, 1);
    const snow = imageStats(bands(100, 100, [SKY, SNOW, SNOW]));
    expect(snow.whiteBottom).toBeGreaterThan(0.95);
    const night = imageStats(bands(100, 100, [[5, 5, 15], [10, 10, 20], [200, 180, 40]]));
    expect(night.brightness).toBeLessThan(0.3);
    expect(night.dark).toBeCloseTo(2 / 3, 1);
    expect(imageStats(bands(50, 50, [[128, 128, 128]])).colourfulness).toBeLessThan(1);
  });

  it('names the dominant basic colours as the colour services do, and converts to HSV', () => {
    const flag = imageStats(bands(90, 90, [[200, 30, 40], [200, 30, 40], [40, 80, 220]]));
    expect(flag.colors.map((c) => c.id)).toEqual(['red', 'blue']);
    expect(flag.colors[0]!.share).toBeCloseTo(2 / 3, 1);
    expect(rgbToHsv(255, 0, 0)).toEqual([0, 1, 1]);
    expect(rgbToHsv(0, 0, 255)[0]).toBe(240);
    expect(rgbToHsv(128, 128, 128)[1]).toBe(0);
  });
});

describe('scene rules', () => {
  it('combines evidence with a noisy-OR and grades detector scores', () => {
    expect(noisyOr(0.5, 0.5)).toBeCloseTo(0.75);
    expect(noisyOr()).toBe(0);
    expect(objectConfidence(0.1)).toBe(0);
    expect(objectConfidence(0.7)).toBe(1);
  });

  it('reads a landscape from colours alone', () => {
    const s = sceneScores({ objects: [], stats: imageStats(bands(120, 90, [SKY, GRASS, GRASS])) });
    expect(scoreOf(s, 'outdoor')).toBeGreaterThan(0.7);
    expect(scoreOf(s, 'sky')).toBeGreaterThan(0.8);
    expect(scoreOf(s, 'nature')).toBeGreaterThan(0.5);
    expect(scoreOf(s, 'bedroom')).toBe(0);
    const top = topScenes(s).map((x) => x.id);
    expect(top).toContain('nature');
    expect(top).not.toContain('indoor');
  });

  it('tells beach, snow and night from their colours', () => {
    const beach = sceneScores({ objects: [], stats: imageStats(bands(120, 120, [SKY, SKY, SEA, SAND])) });
    expect(scoreOf(beach, 'beach')).toBeGreaterThan(0.5);
    expect(scoreOf(beach, 'sea')).toBeGreaterThan(0.4);
    const snow = sceneScores({ objects: [], stats: imageStats(bands(100, 100, [SKY, SNOW, SNOW])) });
    expect(scoreOf(snow, 'snow')).toBeGreaterThan(0.5);
    const night = sceneScores({ objects: [], stats: imageStats(bands(100, 100, [[5, 5, 15], [10, 10, 20], [200, 180, 40]])) });
    expect(scoreOf(night, 'night')).toBeGreaterThan(0.5);
  });

  it('reads rooms, streets and people from objects, and stays undecided without evidence', () => {
    const gray = imageStats(bands(100, 100, [[128, 128, 128]]));
    const bedroom = sceneScores({ objects: [obj('bed', 0.6), obj('chair', 0.4)], stats: gray });
    expect(scoreOf(bedroom, 'bedroom')).toBeGreaterThan(0.8);
    expect(scoreOf(bedroom, 'indoor')).toBeGreaterThan(0.6);
    const street = sceneScores({ objects: [obj('car', 0.6), obj('traffic_light', 0.5)], stats: gray });
    expect(topScenes(street).map((x) => x.id).slice(0, 2).sort()).toEqual(['outdoor', 'street']);
    const crowd = sceneScores({ objects: Array.from({ length: 10 }, () => obj('person', 0.5, [0.1, 0.1, 0.05, 0.2])), stats: gray });
    expect(scoreOf(crowd, 'crowd')).toBeGreaterThan(0.6);
    const portrait = sceneScores({ objects: [obj('person', 0.6, [0.2, 0.05, 0.6, 0.95])], stats: gray });
    expect(scoreOf(portrait, 'portrait')).toBeGreaterThan(0.8);
    const nothing = sceneScores({ objects: [], stats: gray });
    expect(scoreOf(nothing, 'indoor')).toBe(0.5);
    expect(topScenes(nothing)).toEqual([]);
  });

  it('spots documents from text boxes', () => {
    const page = imageStats(bands(100, 100, [[250, 250, 250]]));
    const doc = sceneScores({ objects: [], stats: page, text: { boxes: 20, area: 0.3 } });
    expect(topScenes(doc)[0]!.id).toBe('document');
  });
});
