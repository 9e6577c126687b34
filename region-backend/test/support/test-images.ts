/**
 * Real image files for the images tests and the fetch bench, generated with sharp from photo-like content
 * (gradients, shapes, noise), plus deliberately broken ones. Nothing here is mocked: every file is a real
 * encoding that a real client could send.
 */
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { RgbImage } from '../../src/images/rgb-image.js';

/** A deterministic pseudo-random generator, so fixtures are identical from run to run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A photo-like picture: a diagonal sky-to-ground gradient, a few discs and bars, and sensor-like noise. */
export function photoPixels(width: number, height: number, seed = 1): RgbImage {
  const rnd = random(seed);
  const discs = Array.from({ length: 5 }, () => ({
    x: rnd() * width,
    y: rnd() * height,
    r: (0.05 + rnd() * 0.2) * Math.min(width, height),
    c: [rnd() * 255, rnd() * 255, rnd() * 255],
  }));
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      let c = [90 + 120 * (1 - t), 140 + 60 * (1 - t), 200 - 130 * t];
      for (const d of discs) if ((x - d.x) ** 2 + (y - d.y) ** 2 < d.r ** 2) c = d.c;
      if (Math.floor(x / Math.max(1, width / 12)) % 5 === 0 && y > height * 0.7) c = [60, 50, 40];
      const o = (y * width + x) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, c[k]! + (rnd() - 0.5) * 24));
    }
  }
  return { data, width, height };
}

export const rawInput = (img: RgbImage, channels: 3 | 4 = 3) => ({ raw: { width: img.width, height: img.height, channels } });

export async function photoJpeg(width = 640, height = 480, seed = 1, quality = 85): Promise<Buffer> {
  const img = photoPixels(width, height, seed);
  return sharp(img.data, rawInput(img)).jpeg({ quality }).toBuffer();
}

/** Four flat quadrants: red top-left, green top-right, blue bottom-left, yellow bottom-right. */
export function quadrantPixels(width: number, height: number): RgbImage {
  const colours = [
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
    [255, 255, 0],
  ];
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]!;
      data.set(c, (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

/** A JPEG stored sideways (left half red, right half blue) with EXIF orientation 6 (display rotated 90° clockwise). */
export async function orientedJpeg(): Promise<Buffer> {
  const width = 120;
  const height = 40;
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set((i % width) < width / 2 ? [255, 0, 0] : [0, 0, 255], i * 3);
  return sharp(data, { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
}

/** A PNG whose left half is fully transparent and right half opaque blue. */
export async function alphaPng(width = 64, height = 32): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set((i % width) < width / 2 ? [0, 0, 0, 0] : [0, 0, 255, 255], i * 4);
  return sharp(data, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** An animated image of three frames: red, green, blue. */
export async function animated(format: 'gif' | 'webp', width = 48, height = 32): Promise<Buffer> {
  const frames = [
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
  ];
  const data = Buffer.alloc(width * height * 3 * frames.length);
  frames.forEach((c, f) => {
    for (let i = 0; i < width * height; i++) data.set(c, (f * width * height + i) * 3);
  });
  const input = sharp(data, { raw: { width, height: height * frames.length, channels: 3, pageHeight: height } });
  return format === 'gif' ? input.gif({ delay: [100, 100, 100], loop: 0 }).toBuffer() : input.webp({ lossless: true, delay: [100, 100, 100] }).toBuffer();
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/**
 * A valid-looking PNG a few hundred bytes long whose header declares `side`×`side` RGB pixels (the first
 * rows are real deflate data; the rest is missing). Decoding it would need gigabytes.
 */
export function hugeCanvasPng(side = 30_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, RGB, deflate, no filter, no interlace
  const rows = deflateSync(Buffer.alloc((side * 3 + 1) * 4));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', rows),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Windows BMP encodings: 24-bit bottom-up, 32-bit top-down with an alpha bit field, 8-bit palette. */
export function bmp(img: RgbImage, variant: '24' | '32-alpha' | '8-palette', alpha?: (x: number, y: number) => number): Buffer {
  const { width, height } = img;
  const bpp = variant === '24' ? 24 : variant === '32-alpha' ? 32 : 8;
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  const headerSize = variant === '32-alpha' ? 108 : 40;
  const palette = variant === '8-palette' ? 256 * 4 : 0;
  const offset = 14 + headerSize + palette;
  const out = Buffer.alloc(offset + stride * height);
  out.write('BM', 0, 'ascii');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(headerSize, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(variant === '32-alpha' ? -height : height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(bpp, 28);
  out.writeUInt32LE(variant === '32-alpha' ? 3 : 0, 30);
  out.writeUInt32LE(stride * height, 34);
  if (variant === '32-alpha') {
    [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000].forEach((m, i) => out.writeUInt32LE(m >>> 0, 54 + i * 4));
  }
  if (variant === '8-palette') {
    // 3-3-2 palette: 8 reds × 8 greens × 4 blues.
    for (let i = 0; i < 256; i++) out.set([((i & 3) * 255) / 3, (((i >> 2) & 7) * 255) / 7, ((i >> 5) * 255) / 7, 0], 54 + i * 4);
  }
  for (let y = 0; y < height; y++) {
    const row = offset + (variant === '32-alpha' ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const [r, g, b] = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
      if (bpp === 24) out.set([b, g, r], row + x * 3);
      else if (bpp === 32) out.set([b, g, r, alpha ? alpha(x, y) : 255], row + x * 4);
      else out[row + x] = (Math.round((r * 7) / 255) << 5) | (Math.round((g * 7) / 255) << 2) | Math.round((b * 3) / 255);
    }
  }
  return out;
}

export const HTML_PAGE = Buffer.from('<!DOCTYPE html>\n<html><head><title>Not found</title></head><body>nothing here</body></html>\n');
export const SVG_IMAGE = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');

/** `count` distinct 640×480 JPEGs: 16 generated photos, each copy stamped with its number as a block pattern. */
export async function stampedPhotoJpegs(count: number): Promise<Buffer[]> {
  const bases = Array.from({ length: 16 }, (_, i) => photoPixels(640, 480, 100 + i));
  const out: Buffer[] = [];
  for (let n = 0; n < count; n++) {
    const base = bases[n % bases.length]!;
    const data = Buffer.from(base.data);
    for (let bit = 0; bit < 16; bit++) {
      const on = (n >> bit) & 1;
      const x0 = 16 + bit * 36;
      for (let y = 440; y < 470; y++) for (let x = x0; x < x0 + 30; x++) data.fill(on ? 250 : 5, (y * 640 + x) * 3, (y * 640 + x) * 3 + 3);
    }
    out.push(await sharp(data, { raw: { width: 640, height: 480, channels: 3 } }).jpeg({ quality: 85 }).toBuffer());
  }
  return out;
}
