/** `--draw out.png`: the image with the answer's boxes (x-y-w-h ratios) and labels drawn over it. */
import { readFile } from 'node:fs/promises';
import type Sharp from 'sharp';
import { SetupError } from './errors.js';

export interface DrawnBox {
  box: readonly number[];
  label: string;
}

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** sharp is an optional dependency of the CLI: only --draw needs it. */
async function loadSharp(): Promise<typeof Sharp> {
  try {
    return (await import('sharp')).default;
  } catch {
    throw new SetupError('--draw needs the sharp package, which is not installed (npm install -g sharp)');
  }
}

export async function drawBoxes(image: Buffer, boxes: readonly DrawnBox[], out: string): Promise<void> {
  const sharp = await loadSharp();
  const oriented = sharp(image).rotate();
  const { info } = await sharp(image).rotate().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const stroke = Math.max(2, Math.round(Math.min(width, height) / 200));
  const font = Math.max(12, Math.round(Math.min(width, height) / 30));
  const shapes = boxes.map(({ box, label }) => {
    const [x = 0, y = 0, w = 0, h = 0] = box;
    const [left, top] = [x * width, y * height];
    return `<rect x="${left}" y="${top}" width="${w * width}" height="${h * height}" fill="none" stroke="#ff2d55" stroke-width="${stroke}"/>
<text x="${left + stroke}" y="${Math.max(font, top - stroke)}" font-size="${font}" font-family="sans-serif" fill="#ff2d55" stroke="#fff" stroke-width="${stroke / 2}" paint-order="stroke">${escapeXml(label)}</text>`;
  });
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`);
  await oriented.composite([{ input: svg, top: 0, left: 0 }]).png().toFile(out);
}

/** A local file, or the bytes behind a URL (for drawing over a query given by URL). */
export async function imageBytes(image: string): Promise<Buffer> {
  if (/^https?:\/\//.test(image)) {
    const res = await fetch(image);
    if (!res.ok) throw new Error(`cannot fetch ${image}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
  return readFile(image);
}
