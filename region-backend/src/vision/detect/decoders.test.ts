import { describe, expect, it } from 'vitest';
import type { OutputTensor } from '../runtime/manifest-model.js';
import { decodeClassScores, mergeCategories } from '../classify/class-scores.decoder.js';
import { ageGenderOptions, decodeAgeGender } from './age-gender.decoder.js';
import { boxesOptions, decodeBoxes } from './boxes.decoder.js';
import { centernetOptions, decodeCenternet } from './centernet.decoder.js';
import { clampBox, iou, nonMaxSuppression } from './detection.js';

const tensor = (dims: number[], values?: number[]): OutputTensor => {
  const size = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(size);
  if (values) data.set(values);
  return { data, dims };
};

describe('detection helpers', () => {
  it('computes IoU, suppresses overlapping boxes per class and clamps boxes', () => {
    expect(iou([0, 0, 1, 1], [0.5, 0, 1, 1])).toBeCloseTo(1 / 3);
    const kept = nonMaxSuppression(
      [
        { box: [0, 0, 0.5, 0.5], classIndex: 0, score: 0.9 },
        { box: [0.05, 0, 0.5, 0.5], classIndex: 0, score: 0.8 },
        { box: [0.05, 0, 0.5, 0.5], classIndex: 1, score: 0.7 },
        { box: [0.6, 0.6, 0.3, 0.3], classIndex: 0, score: 0.6 },
      ],
      0.5,
    );
    expect(kept.map((k) => k.score)).toEqual([0.9, 0.7, 0.6]);
    expect(clampBox([-0.2, 0.5, 0.4, 0.8])).toEqual([0, 0.5, 0.2, 0.5]);
    expect(clampBox([1.2, 0, 0.1, 0.1])).toBeNull();
  });
});

describe('centernet decoder', () => {
  it('turns heatmap peaks and edge distances into boxes, one per object', () => {
    const H = 8, W = 8, C = 2;
    const heat = tensor([1, H, W, C]);
    const wh = tensor([1, H, W, 4]);
    const set = (x: number, y: number, c: number, v: number, ltrb: number[]) => {
      heat.data[(y * W + x) * C + c] = v;
      wh.data.set(ltrb, (y * W + x) * 4);
    };
    // An object of class 1 centred at cell (2, 3) = input pixel (8, 12) of a 32×32 input, with a weaker
    // neighbour that is not a peak, and a class 0 object that scores below the threshold.
    set(2, 3, 1, 0.6, [4, 8, 8, 4]);
    set(3, 3, 1, 0.5, [4, 8, 8, 4]);
    set(6, 6, 0, 0.1, [2, 2, 2, 2]);
    const dets = decodeCenternet([heat, wh], 32, 32, centernetOptions.parse({ type: 'centernet', stride: 4, minScore: 0.2 }));
    expect(dets).toHaveLength(1);
    expect(dets[0]!.classIndex).toBe(1);
    expect(dets[0]!.score).toBeCloseTo(0.6);
    expect(dets[0]!.box.map((v) => Math.round(v * 32))).toEqual([4, 4, 12, 12]);
    expect(() => decodeCenternet([heat, tensor([1, 4, 4, 4])], 32, 32, centernetOptions.parse({ type: 'centernet' }))).toThrow(/does not match/);
  });
});

describe('boxes decoder', () => {
  it('reads yxyx normalised and xyxy pixel boxes, with class offsets and score threshold', () => {
    const scores = tensor([1, 3], [0.9, 0.3, 0.8]);
    const boxes = tensor([1, 3, 4], [0.1, 0.2, 0.5, 0.6, 0, 0, 1, 1, 0.5, 0.5, 0.9, 0.7]);
    const faces = decodeBoxes([scores, boxes], 100, 100, boxesOptions.parse({ type: 'boxes', minScore: 0.5 }));
    expect(faces).toHaveLength(2);
    expect(faces[0]!.box.map((v) => +v.toFixed(3))).toEqual([0.2, 0.1, 0.4, 0.4]);
    const classes = tensor([1, 3], [1, 2, 3]);
    const px = tensor([1, 3, 4], [10, 20, 50, 60, 0, 0, 100, 100, 50, 50, 90, 70]);
    const dets = decodeBoxes([px, scores, classes], 100, 200, boxesOptions.parse({ type: 'boxes', boxesOutput: 0, scoresOutput: 1, classesOutput: 2, classOffset: 1, boxFormat: 'xyxy', normalised: false, minScore: 0.5 }));
    expect(dets.map((d) => d.classIndex)).toEqual([0, 2]);
    expect(dets[0]!.box.map((v) => +v.toFixed(3))).toEqual([0.1, 0.1, 0.4, 0.2]);
  });
});

describe('age and gender decoder', () => {
  it('reads P(male), the expected age and P(adult) from an age distribution, per face of a batch', () => {
    const gender = tensor([2, 1], [0.9, 0.2]);
    const age = tensor([2, 100]);
    age.data[30] = 1; // face 0: certainly 30
    age.data[100 + 10] = 0.75; // face 1: probably 10, maybe 40
    age.data[100 + 40] = 0.25;
    const embedding = tensor([2, 1024]);
    const options = ageGenderOptions.parse({ type: 'age-gender' });
    const a = decodeAgeGender([gender, embedding, age], 0, options, 18);
    expect(a).toEqual({ male: expect.closeTo(0.9), age: 30, adult: 1 });
    const b = decodeAgeGender([gender, embedding, age], 1, options, 18);
    expect(b.male).toBeCloseTo(0.2);
    expect(b.age).toBeCloseTo(17.5);
    expect(b.adult).toBeCloseTo(0.25);
    expect(() => decodeAgeGender([gender], 0, options, 18)).toThrow(/lack gender/);
  });
});

describe('class score decoder', () => {
  it('normalises logits, keeps probabilities, and merges classes into categories', () => {
    const soft = decodeClassScores([tensor([1, 2], [0, Math.log(3)])], ['a', 'b'], { type: 'softmax', scoresOutput: 0 });
    expect(soft.map((s) => +s.score.toFixed(3))).toEqual([0.25, 0.75]);
    const nsfw = decodeClassScores([tensor([1, 5], [0.05, 0.1, 0.6, 0.2, 0.05])], ['drawing', 'hentai', 'neutral', 'porn', 'sexy'], { type: 'probabilities', scoresOutput: 0 });
    const merged = mergeCategories(nsfw, ['non-porn', 'porn'], { porn: ['porn', 'hentai'], 'non-porn': ['neutral', 'drawing', 'sexy'] });
    expect(merged.map((m) => +m.score.toFixed(3))).toEqual([0.7, 0.3]);
    // Without a mapping a class counts for the category of the same id.
    expect(mergeCategories([{ id: 'porn', score: 0.8 }, { id: 'x', score: 0.2 }], ['non-porn', 'porn']).map((m) => m.score)).toEqual([0, 0.8]);
    expect(() => decodeClassScores([tensor([1, 3])], ['a', 'b'], { type: 'probabilities', scoresOutput: 0 })).toThrow(/3 scores but 2 labels/);
  });
});
