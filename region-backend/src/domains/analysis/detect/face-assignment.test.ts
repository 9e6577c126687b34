import { describe, expect, it } from 'vitest';
import { assignFaces, headRegion } from './face-assignment.js';

describe('face assignment', () => {
  it('gives each person the face in the upper half of its box, preferring the smallest box', () => {
    const persons = [
      { box: [0, 0, 0.5, 1] as [number, number, number, number], score: 0.9 },
      { box: [0.5, 0.2, 0.3, 0.8] as [number, number, number, number], score: 0.8 },
      { box: [0.05, 0.05, 0.2, 0.5] as [number, number, number, number], score: 0.7 },
    ];
    const faces = [
      { box: [0.6, 0.25, 0.1, 0.1] as [number, number, number, number], score: 0.9 }, // head of person 1
      { box: [0.1, 0.08, 0.08, 0.08] as [number, number, number, number], score: 0.8 }, // inside persons 0 and 2: the smaller, 2
      { box: [0.1, 0.8, 0.1, 0.1] as [number, number, number, number], score: 0.95 }, // lower half of person 0: nobody's
    ];
    expect(assignFaces(persons, faces)).toEqual([-1, 0, 1]);
    expect(assignFaces(persons, [])).toEqual([-1, -1, -1]);
  });

  it('searches the top of a person box, slightly widened and clamped', () => {
    const r = headRegion([0.1, 0.5, 0.4, 0.5]);
    expect(r.map((v) => +v.toFixed(3))).toEqual([0.06, 0.475, 0.48, 0.225]);
    expect(headRegion([0, 0, 1, 1]).map((v) => +v.toFixed(3))).toEqual([0, 0, 1, 0.4]);
  });
});
