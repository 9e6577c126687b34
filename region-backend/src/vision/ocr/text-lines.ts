/**
 * Reading order and line assembly. The detector may split one printed line into several boxes (wide gaps
 * between words or between a label and its value); boxes that continue each other on the same baseline
 * are chained into rows, rows are ordered top to bottom, and within a row boxes closer than a few character
 * heights are merged into one line.
 */
import type { Point, Quad } from './geometry.js';

export interface RecognisedBox {
  quad: Quad;
  text: string;
  score: number;
  /** The strip was read turned by 180° (the direction classifier found it upside down). */
  flipped?: boolean;
}

export interface TextLine {
  /** Axis-aligned bounds in pixels. */
  left: number;
  top: number;
  right: number;
  bottom: number;
  text: string;
  score: number;
}

export interface LineOptions {
  /** Boxes of one row whose gap is below this many text heights form one line. */
  mergeGap: number;
  /** A gap above this many text heights becomes a space between Latin text when boxes are merged. */
  spaceGap: number;
}

export const LINE_DEFAULTS: LineOptions = { mergeGap: 2, spaceGap: 0.3 };

interface Item extends RecognisedBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
  height: number;
  /** Vertical centre of the left and right ends (they differ on skewed text). */
  leftY: number;
  rightY: number;
}

const mid = (a: Point, b: Point): number => (a.y + b.y) / 2;

function toItem(box: RecognisedBox): Item {
  const [tl, tr, br, bl] = box.quad;
  const xs = box.quad.map((p) => p.x);
  const ys = box.quad.map((p) => p.y);
  return {
    ...box,
    left: Math.min(...xs),
    right: Math.max(...xs),
    top: Math.min(...ys),
    bottom: Math.max(...ys),
    height: Math.max(1, (Math.hypot(tl.x - bl.x, tl.y - bl.y) + Math.hypot(tr.x - br.x, tr.y - br.y)) / 2),
    leftY: mid(tl, bl),
    rightY: mid(tr, br),
  };
}

/** Does `next` continue the row that currently ends with `last`? */
function continues(last: Item, next: Item): boolean {
  const h = Math.max(last.height, next.height);
  const ratio = last.height / next.height;
  return ratio > 0.5 && ratio < 2 && Math.abs(next.leftY - last.rightY) < 0.5 * h && next.left > last.right - 0.5 * h;
}

/** Boxes grouped into rows (each left to right), rows top to bottom. */
export function groupRows(boxes: RecognisedBox[]): RecognisedBox[][] {
  const items = boxes.map(toItem).sort((a, b) => a.left - b.left);
  const rows: Item[][] = [];
  for (const item of items) {
    let best: Item[] | null = null;
    let bestDy = Infinity;
    for (const row of rows) {
      const last = row[row.length - 1]!;
      if (!continues(last, item)) continue;
      const dy = Math.abs(item.leftY - last.rightY);
      if (dy < bestDy) {
        bestDy = dy;
        best = row;
      }
    }
    if (best) best.push(item);
    else rows.push([item]);
  }
  const centre = (row: Item[]): number => row.reduce((s, i) => s + (i.leftY + i.rightY) / 2, 0) / row.length;
  const top = (row: Item[]): number => Math.min(...row.map((i) => i.top));
  const bottom = (row: Item[]): number => Math.max(...row.map((i) => i.bottom));
  rows.sort((a, b) => centre(a) - centre(b));
  // Rows side by side (a small caption next to a big word) read left to right, as PaddleOCR's `sorted_boxes`.
  for (let pass = 0, swapped = true; swapped && pass < rows.length; pass++) {
    swapped = false;
    for (let i = 0; i + 1 < rows.length; i++) {
      const a = rows[i]!;
      const b = rows[i + 1]!;
      const level = (centre(b) >= top(a) && centre(b) <= bottom(a)) || (centre(a) >= top(b) && centre(a) <= bottom(b));
      if (level && b[0]!.left < a[0]!.left) {
        rows[i] = b;
        rows[i + 1] = a;
        swapped = true;
      }
    }
  }
  return rows;
}

const CJK = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;

function joiner(before: string, after: string, gap: number, height: number, options: LineOptions): string {
  const a = before.slice(-1);
  const b = after.slice(0, 1);
  if (!a || !b || a === ' ' || b === ' ') return '';
  // Chinese text has no spaces between words; only a wide gap there is a real separation.
  const threshold = CJK.test(a) && CJK.test(b) ? 1 : options.spaceGap;
  return gap > threshold * height ? ' ' : '';
}

/** One line per run of close boxes in a row, in reading order. */
export function assembleLines(boxes: RecognisedBox[], options: LineOptions = LINE_DEFAULTS): TextLine[] {
  const lines: TextLine[] = [];
  for (const row of groupRows(boxes)) {
    let current: (TextLine & { chars: number; sum: number; height: number }) | null = null;
    for (const box of row.map(toItem)) {
      const gap = current ? box.left - current.right : Infinity;
      const h = current ? Math.max(current.height, box.height) : box.height;
      if (current && gap < options.mergeGap * h) {
        const n = Math.max(1, [...box.text].length);
        current.text += joiner(current.text, box.text, gap, h, options) + box.text;
        current.left = Math.min(current.left, box.left);
        current.right = Math.max(current.right, box.right);
        current.top = Math.min(current.top, box.top);
        current.bottom = Math.max(current.bottom, box.bottom);
        current.sum += box.score * n;
        current.chars += n;
        current.score = current.sum / current.chars;
        current.height = h;
      } else {
        if (current) lines.push(finish(current));
        const n = Math.max(1, [...box.text].length);
        current = { left: box.left, top: box.top, right: box.right, bottom: box.bottom, text: box.text, score: box.score, chars: n, sum: box.score * n, height: box.height };
      }
    }
    if (current) lines.push(finish(current));
  }
  return lines;
}

function finish(line: TextLine): TextLine {
  return { left: line.left, top: line.top, right: line.right, bottom: line.bottom, text: line.text.trim(), score: line.score };
}

/**
 * When most of the text (by characters) was read upside down, the whole page is: reading order then runs
 * from the image's bottom right. Returns the boxes in the page's own frame and the mapping of lines back.
 */
export function readingFrame(boxes: RecognisedBox[], width: number, height: number): { boxes: RecognisedBox[]; toImage: (line: TextLine) => TextLine } {
  let flipped = 0;
  let total = 0;
  for (const b of boxes) {
    const n = [...b.text].length;
    total += n;
    if (b.flipped) flipped += n;
  }
  if (flipped * 2 <= total) return { boxes, toImage: (line) => line };
  const turn = (p: Point): Point => ({ x: width - p.x, y: height - p.y });
  return {
    boxes: boxes.map((b) => {
      const [tl, tr, br, bl] = b.quad;
      return { ...b, quad: [turn(br), turn(bl), turn(tl), turn(tr)] };
    }),
    toImage: (line) => ({ ...line, left: width - line.right, right: width - line.left, top: height - line.bottom, bottom: height - line.top }),
  };
}
