import { describe, expect, it } from 'vitest';
import { clippedBounds, insideQuad, intersectionOverSmaller, iou, isConvexSameTurn, project, projectOutline, sideStretch, type Quad } from './logo-geometry.js';

const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];
const square: Quad = [[10, 10], [110, 10], [110, 60], [10, 60]];

describe('logo geometry', () => {
  it('projects points through a homography and refuses points at infinity', () => {
    expect(project([2, 0, 5, 0, 3, 7, 0, 0, 1], 1, 1)).toEqual([7, 10]);
    expect(project([1, 0, 0, 0, 1, 0, 1, 0, 0], -1, 0)).toBeNull();
    expect(projectOutline(IDENTITY, [0, 0, 100, 50])).toEqual([[0, 0], [100, 0], [100, 50], [0, 50]]);
  });

  it('accepts a convex outline turning like the reference and refuses mirrored or crossed ones', () => {
    expect(isConvexSameTurn(square)).toBe(true);
    const mirrored: Quad = [[110, 10], [10, 10], [10, 60], [110, 60]];
    expect(isConvexSameTurn(mirrored)).toBe(false);
    const crossed: Quad = [[10, 10], [110, 60], [110, 10], [10, 60]];
    expect(isConvexSameTurn(crossed)).toBe(false);
    const dented: Quad = [[10, 10], [110, 10], [40, 30], [10, 60]];
    expect(isConvexSameTurn(dented)).toBe(false);
  });

  it('measures how unevenly the sides are scaled', () => {
    expect(sideStretch(square, [0, 0, 100, 50])).toBeCloseTo(1);
    const trapezoid: Quad = [[0, 0], [100, 20], [100, 30], [0, 50]];
    expect(sideStretch(trapezoid, [0, 0, 100, 50])).toBeGreaterThan(4);
  });

  it('clips boxes to the frame', () => {
    expect(clippedBounds([[-10, -10], [50, -10], [50, 20], [-10, 20]], 40, 40)).toEqual([0, 0, 40, 20]);
    expect(clippedBounds([[-10, -10], [-5, -10], [-5, -5], [-10, -5]], 40, 40)).toBeNull();
  });

  it('tests points inside a quad, optionally grown', () => {
    expect(insideQuad(square, 60, 30)).toBe(true);
    expect(insideQuad(square, 5, 30)).toBe(false);
    expect(insideQuad(square, 5, 30, 0.2)).toBe(true);
  });

  it('compares boxes by IoU and by intersection over the smaller box', () => {
    expect(iou([0, 0, 10, 10], [5, 0, 10, 10])).toBeCloseTo(50 / 150);
    expect(iou([0, 0, 10, 10], [20, 20, 5, 5])).toBe(0);
    expect(intersectionOverSmaller([0, 0, 10, 10], [2, 2, 4, 4])).toBe(1);
    expect(iou([0, 0, 10, 10], [2, 2, 4, 4])).toBeCloseTo(0.16);
  });
});
