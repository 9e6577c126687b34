import type { RgbImage } from '../../images/rgb-image.js';
/**
 * Where the picture is inside a query that shows more than the picture: a screenshot of a web page, a framed
 * print, a photo pasted on a plain background. The page around a picture is mostly flat colour (the colour of
 * the image border) with thin text and bars; the picture is a compact block of cells that are not. The box of
 * the largest such block is embedded as a second query view (search.service.ts takes the better score).
 * Linear in the number of pixels; pure JavaScript on packed RGB.
 */

export interface ContentBoxOptions {
  /** Cells per side of the grid on the longer side of the image. */
  grid: number;
  /** A pixel is background when every channel is within this of the background colour. */
  tolerance: number;
  /** A cell is background when at least this share of its pixels is. */
  backgroundShare: number;
  /** The box must cover at least this share of the image area … */
  minArea: number;
  /** … and at most this share (above it, the query is the picture itself). */
  maxArea: number;
}

export const CONTENT_BOX: ContentBoxOptions = { grid: 48, tolerance: 24, backgroundShare: 0.55, minArea: 0.06, maxArea: 0.8 };

/** Normalised [x, y, w, h] of the picture inside the image, or null when the image is (almost) all picture. */
export function contentBox(rgb: RgbImage, options: ContentBoxOptions = CONTENT_BOX): [number, number, number, number] | null {
  const { width, height, data } = rgb;
  if (width < 32 || height < 32) return null;
  const background = borderColour(rgb);
  const cell = Math.max(2, Math.ceil(Math.max(width, height) / options.grid));
  const cols = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const content = new Uint8Array(cols * rows);
  const tol = options.tolerance;
  const [red, green, blue] = background;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [x0, y0] = [c * cell, r * cell];
      const x1 = Math.min(width, x0 + cell);
      const y1 = Math.min(height, y0 + cell);
      const total = (y1 - y0) * (x1 - x0);
      const need = options.backgroundShare * total;
      // A cell is content when fewer than `need` of its pixels are flat; counted row by row until that is decided.
      let flat = 0;
      let left = total;
      for (let y = y0; y < y1 && flat < need && flat + left >= need; y++, left -= x1 - x0) {
        let i = (y * width + x0) * 3;
        for (let x = x0; x < x1; x++, i += 3) {
          if (Math.abs(data[i]! - red) <= tol && Math.abs(data[i + 1]! - green) <= tol && Math.abs(data[i + 2]! - blue) <= tol) flat++;
        }
      }
      content[r * cols + c] = flat < need ? 1 : 0;
    }
  }
  const box = largestComponentBox(content, cols, rows);
  if (!box) return null;
  const [c0, r0, c1, r1] = box;
  const x = (c0 * cell) / width;
  const y = (r0 * cell) / height;
  const w = Math.min(1 - x, ((c1 - c0 + 1) * cell) / width);
  const h = Math.min(1 - y, ((r1 - r0 + 1) * cell) / height);
  const area = w * h;
  if (area < options.minArea || area > options.maxArea) return null;
  return [x, y, w, h];
}

/** Median colour of the outermost ring of pixels. */
function borderColour(rgb: RgbImage): [number, number, number] {
  const { width, height, data } = rgb;
  const channels: number[][] = [[], [], []];
  const push = (x: number, y: number) => {
    const i = (y * width + x) * 3;
    for (let k = 0; k < 3; k++) channels[k]!.push(data[i + k]!);
  };
  const step = Math.max(1, Math.floor((width + height) / 400));
  for (let x = 0; x < width; x += step) {
    push(x, 0);
    push(x, height - 1);
  }
  for (let y = 0; y < height; y += step) {
    push(0, y);
    push(width - 1, y);
  }
  return channels.map((values) => {
    values.sort((a, b) => a - b);
    return values[values.length >> 1] ?? 255;
  }) as [number, number, number];
}

/** Bounding box [c0, r0, c1, r1] of the largest 4-connected block of set cells (iterative flood fill). */
function largestComponentBox(cells: Uint8Array, cols: number, rows: number): [number, number, number, number] | null {
  const seen = new Uint8Array(cells.length);
  const stack = new Int32Array(cells.length);
  let best: [number, number, number, number] | null = null;
  let bestSize = 0;
  for (let start = 0; start < cells.length; start++) {
    if (!cells[start] || seen[start]) continue;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let size = 0;
    let c0 = cols;
    let r0 = rows;
    let c1 = -1;
    let r1 = -1;
    while (top > 0) {
      const at = stack[--top]!;
      size++;
      const r = Math.floor(at / cols);
      const c = at - r * cols;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      const neighbours = [c > 0 ? at - 1 : -1, c < cols - 1 ? at + 1 : -1, r > 0 ? at - cols : -1, r < rows - 1 ? at + cols : -1];
      for (const n of neighbours) {
        if (n >= 0 && cells[n] && !seen[n]) {
          seen[n] = 1;
          stack[top++] = n;
        }
      }
    }
    if (size > bestSize) {
      bestSize = size;
      best = [c0, r0, c1, r1];
    }
  }
  return best;
}
