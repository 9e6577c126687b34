import { describe, expect, it } from 'vitest';
import { boxesFromProbabilityMap } from './db-postprocess.js';
import { ctcGreedyDecode } from './ctc-decode.js';
import { minAreaRect, orderCorners, type Quad } from './geometry.js';
import { assembleLines, groupRows, readingFrame, type RecognisedBox } from './text-lines.js';
import { recoverSpaces } from './space-recovery.js';

function map(width: number, height: number, fill: (x: number, y: number) => number) {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = fill(x, y);
  return { data, width, height };
}

const rect = (left: number, top: number, right: number, bottom: number): Quad =>
  [{ x: left, y: top }, { x: right, y: top }, { x: right, y: bottom }, { x: left, y: bottom }];
const box = (text: string, left: number, top: number, right: number, bottom: number): RecognisedBox => ({ quad: rect(left, top, right, bottom), text, score: 0.9 });

describe('minAreaRect', () => {
  it('finds the tilted rectangle of a rotated point set', () => {
    const a = (20 * Math.PI) / 180;
    const pts = [];
    for (let u = 0; u <= 40; u += 2) for (let v = 0; v <= 10; v += 2) pts.push({ x: 50 + u * Math.cos(a) - v * Math.sin(a), y: 50 + u * Math.sin(a) + v * Math.cos(a) });
    const r = minAreaRect(pts);
    expect(Math.max(r.width, r.height)).toBeCloseTo(40, 5);
    expect(Math.min(r.width, r.height)).toBeCloseTo(10, 5);
  });

  it('orders corners top-left, top-right, bottom-right, bottom-left', () => {
    const q = orderCorners([{ x: 10, y: 5 }, { x: 0, y: 5 }, { x: 0, y: 0 }, { x: 10, y: 0 }]);
    expect(q).toEqual(rect(0, 0, 10, 5));
  });
});

describe('boxesFromProbabilityMap', () => {
  it('turns two text regions into unclipped boxes in image coordinates', () => {
    const m = map(64, 32, (x, y) => ((x >= 4 && x <= 27 && y >= 10 && y <= 15) || (x >= 36 && x <= 59 && y >= 10 && y <= 15) ? 0.95 : 0.01));
    const boxes = boxesFromProbabilityMap(m, 128, 64).sort((a, b) => a.quad[0].x - b.quad[0].x);
    expect(boxes).toHaveLength(2);
    const [first] = boxes;
    expect(first!.score).toBeGreaterThan(0.9);
    // Region x 4..27, y 10..15 grown by area*1.5/perimeter = 23*5*1.5/56 ≈ 3.08, then scaled by 2.
    expect(first!.quad[0].x).toBeCloseTo((4 - 3.08) * 2, 1);
    expect(first!.quad[2].y).toBeCloseTo((15 + 3.08) * 2, 1);
  });

  it('drops weak regions and answers nothing for a blank map', () => {
    expect(boxesFromProbabilityMap(map(32, 32, () => 0), 32, 32)).toEqual([]);
    // Above the pixel threshold (0.3) but below the box threshold (0.6).
    expect(boxesFromProbabilityMap(map(32, 32, (x, y) => (x > 5 && x < 25 && y > 10 && y < 20 ? 0.4 : 0)), 32, 32)).toEqual([]);
  });
});

describe('ctcGreedyDecode', () => {
  it('collapses repeats, drops blanks and averages kept probabilities', () => {
    const charset = ['', 'a', 'b', ' '];
    const seq = [1, 1, 0, 1, 2, 2, 0];
    const probs = new Float32Array(seq.length * 4);
    seq.forEach((c, t) => {
      probs.fill(0.1 / 3, t * 4, t * 4 + 4);
      probs[t * 4 + c] = 0.9;
    });
    const [d] = ctcGreedyDecode(probs, [1, seq.length, 4], charset);
    expect(d!.text).toBe('aab');
    expect(d!.steps).toEqual([0, 3, 4]);
    expect(d!.score).toBeCloseTo(0.9, 5);
  });
});

describe('line assembly', () => {
  it('chains boxes on one baseline, orders rows top to bottom, merges close boxes into one line', () => {
    const boxes = [box('world', 70, 10, 120, 30), box('second line', 0, 50, 110, 70), box('hello', 0, 11, 60, 31), box('far away', 400, 50, 480, 70)];
    expect(groupRows(boxes).map((r) => r.map((b) => b.text))).toEqual([['hello', 'world'], ['second line', 'far away']]);
    const lines = assembleLines(boxes);
    expect(lines.map((l) => l.text)).toEqual(['hello world', 'second line', 'far away']);
    expect(lines[0]).toMatchObject({ left: 0, top: 10, right: 120, bottom: 31 });
  });

  it('does not put spaces between Chinese characters printed apart', () => {
    expect(assembleLines([box('金额', 0, 0, 40, 20), box('合计', 55, 0, 95, 20)]).map((l) => l.text)).toEqual(['金额合计']);
  });
});

describe('recoverSpaces', () => {
  /** A 48-pixel strip with ink blocks at the given column ranges. */
  function strip(width: number, blocks: [number, number][]) {
    const data = new Uint8Array(width * 48 * 3).fill(250);
    for (const [a, b] of blocks) for (let y = 10; y < 38; y++) for (let x = a; x < b; x++) data.fill(10, (y * width + x) * 3, (y * width + x) * 3 + 3);
    return { data, width, height: 48 };
  }

  it('inserts a space at a wide gap between Latin characters only', () => {
    // "NO" then a 24-pixel gap then "GO"; steps (stride 8) emitted at each glyph.
    const s = strip(120, [[4, 20], [24, 40], [64, 80], [84, 100]]);
    expect(recoverSpaces(s, 'NOGO', [1, 4, 9, 11], 8)).toBe('NO GO');
    expect(recoverSpaces(s, '金额合计', [1, 4, 9, 11], 8)).toBe('金额合计');
    expect(recoverSpaces(strip(120, [[4, 20], [24, 40], [44, 60], [64, 80]]), 'ABCD', [1, 4, 6, 9], 8)).toBe('ABCD');
  });
});

describe('readingFrame', () => {
  it('reverses reading order when most text was read upside down, and maps lines back', () => {
    const boxes = [
      { ...box('second', 10, 10, 90, 30), flipped: true },
      { ...box('first', 10, 60, 90, 80), flipped: true },
    ];
    const page = readingFrame(boxes, 100, 100);
    const lines = assembleLines(page.boxes).map(page.toImage);
    expect(lines.map((l) => l.text)).toEqual(['first', 'second']);
    expect(lines[0]).toMatchObject({ left: 10, top: 60, right: 90, bottom: 80 });
    expect(readingFrame([box('upright', 0, 0, 10, 10)], 100, 100).boxes[0]!.quad).toEqual(rect(0, 0, 10, 10));
  });
});
