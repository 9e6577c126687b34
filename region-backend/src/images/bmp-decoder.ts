/**
 * Windows BMP, which the bundled libvips cannot read: uncompressed 1/4/8-bit palette, 16/24/32-bit and
 * bit-field images, bottom-up or top-down, with the OS/2 and Windows (v3–v5) headers. RLE-compressed and
 * embedded JPEG/PNG bitmaps are refused. The header is read first so the pixel limit applies before any
 * pixel buffer is allocated.
 */
import { ImageDecodeError } from './image-errors.js';

export interface BmpHeader {
  width: number;
  height: number;
  bitsPerPixel: number;
  compression: number;
  topDown: boolean;
  dataOffset: number;
  headerSize: number;
  paletteOffset: number;
  paletteEntries: number;
  paletteEntrySize: 3 | 4;
  masks: [r: number, g: number, b: number, a: number];
}

/** Widest side accepted (the pixel limit usually refuses sooner); keeps every size product a safe integer. */
const MAX_SIDE = 65_535;
const BI_RGB = 0;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;

const bad = (message: string) => new ImageDecodeError('undecodable', `BMP: ${message}`);

export function readBmpHeader(bytes: Uint8Array): BmpHeader {
  if (bytes.length < 26) throw bad('the file is truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataOffset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  if (headerSize === 12) {
    const bitsPerPixel = view.getUint16(24, true);
    return {
      width: view.getUint16(18, true),
      height: view.getUint16(20, true),
      bitsPerPixel,
      compression: BI_RGB,
      topDown: false,
      dataOffset,
      headerSize,
      paletteOffset: 26,
      paletteEntries: bitsPerPixel <= 8 ? 1 << bitsPerPixel : 0,
      paletteEntrySize: 3,
      masks: [0, 0, 0, 0],
    };
  }
  if (bytes.length < 54) throw bad('the file is truncated');
  const rawHeight = view.getInt32(22, true);
  const bitsPerPixel = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  const colorsUsed = view.getUint32(46, true);
  let masks: BmpHeader['masks'] =
    bitsPerPixel === 16 ? [0x7c00, 0x03e0, 0x001f, 0] : bitsPerPixel === 32 ? [0xff0000, 0xff00, 0xff, 0] : [0, 0, 0, 0];
  let paletteOffset = 14 + headerSize;
  if (compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS) {
    const maskCount = compression === BI_ALPHABITFIELDS || headerSize >= 56 ? 4 : 3;
    if (bytes.length < 54 + maskCount * 4) throw bad('the file is truncated');
    const m = (i: number) => (i < maskCount ? view.getUint32(54 + i * 4, true) : 0);
    masks = [m(0), m(1), m(2), m(3)];
    if (headerSize === 40) paletteOffset += maskCount * 4;
  }
  return {
    width: view.getInt32(18, true),
    height: Math.abs(rawHeight),
    bitsPerPixel,
    compression,
    topDown: rawHeight < 0,
    dataOffset,
    headerSize,
    paletteOffset,
    paletteEntries: bitsPerPixel <= 8 ? Math.min(colorsUsed || 1 << bitsPerPixel, 1 << bitsPerPixel) : 0,
    paletteEntrySize: 4,
    masks,
  };
}

/**
 * A reader for one bit-field channel. Only a contiguous run of set bits is a valid mask (a BMP with
 * `0xFFFFFFFF` or `0b1010` as a mask is refused); loops are bounded by 32 bits, so a hostile mask cannot
 * spin (JavaScript shift counts wrap at 32: `mask >>> 32 === mask`).
 */
export function channelReader(mask: number): (px: number) => number {
  const m = mask >>> 0;
  if (!m) return () => 255;
  let shift = 0;
  while (shift < 32 && !((m >>> shift) & 1)) shift++;
  let bits = 0;
  while (shift + bits < 32 && (m >>> (shift + bits)) & 1) bits++;
  if (shift + bits < 32 && m >>> (shift + bits) !== 0) throw bad('bit-field masks must be contiguous runs of bits');
  if (bits > 16) {
    // A 17–32-bit channel: keep its 8 highest bits (2 ** 32 - 1 would not fit a 32-bit integer shift).
    const drop = bits - 8;
    return (px) => ((px >>> 0) >>> (shift + drop)) & 0xff;
  }
  const max = 2 ** bits - 1;
  return (px) => Math.round((((px & m) >>> shift) * 255) / max);
}

/** Decodes a BMP into packed RGB or RGBA pixels (RGBA only when the file carries real alpha). */
export function decodeBmp(bytes: Uint8Array, header = readBmpHeader(bytes)): { data: Uint8Array; width: number; height: number; channels: 3 | 4 } {
  const { width, height, bitsPerPixel: bpp, compression } = header;
  if (width <= 0 || height <= 0) throw bad('invalid dimensions');
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw bad(`${bpp} bits per pixel is not supported`);
  if (compression !== BI_RGB && compression !== BI_BITFIELDS && compression !== BI_ALPHABITFIELDS) {
    throw bad('compressed bitmaps are not supported');
  }
  if (!Number.isSafeInteger(width * height * 4) || width > MAX_SIDE || height > MAX_SIDE) throw bad('the declared size is too large');
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  if (header.dataOffset + stride * height > bytes.length) throw bad('the file is truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const palette: [number, number, number][] = [];
  for (let i = 0; i < header.paletteEntries; i++) {
    const at = header.paletteOffset + i * header.paletteEntrySize;
    if (at + 3 > bytes.length) break;
    palette.push([bytes[at + 2]!, bytes[at + 1]!, bytes[at]!]);
  }
  const [readR, readG, readB, readA] = header.masks.map(channelReader) as [(px: number) => number, (px: number) => number, (px: number) => number, (px: number) => number];
  const hasAlphaMask = header.masks[3] !== 0 && bpp >= 16;
  const out = new Uint8Array(width * height * 4);
  let anyAlpha = false;
  for (let y = 0; y < height; y++) {
    const row = header.dataOffset + (header.topDown ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      let r: number, g: number, b: number, a = 255;
      if (bpp <= 8) {
        const bit = x * bpp;
        const index = (bytes[row + (bit >> 3)]! >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        [r, g, b] = palette[index] ?? [0, 0, 0];
      } else if (bpp === 24) {
        const at = row + x * 3;
        [b, g, r] = [bytes[at]!, bytes[at + 1]!, bytes[at + 2]!];
      } else {
        const px = bpp === 16 ? view.getUint16(row + x * 2, true) : view.getUint32(row + x * 4, true);
        [r, g, b] = [readR(px), readG(px), readB(px)];
        if (hasAlphaMask) {
          a = readA(px);
          if (a) anyAlpha = true;
        }
      }
      out[o] = r!;
      out[o + 1] = g!;
      out[o + 2] = b!;
      out[o + 3] = a;
    }
  }
  // A bit-field alpha channel that is zero everywhere means "unused", not "fully transparent".
  if (!hasAlphaMask || !anyAlpha) {
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0, j = 0; i < out.length; i += 4, j += 3) {
      rgb[j] = out[i]!;
      rgb[j + 1] = out[i + 1]!;
      rgb[j + 2] = out[i + 2]!;
    }
    return { data: rgb, width, height, channels: 3 };
  }
  return { data: out, width, height, channels: 4 };
}
