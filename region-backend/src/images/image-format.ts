/**
 * Image formats recognised from their first bytes. Neither the Content-Type of a download nor the name of
 * an upload is trusted: only these signatures decide what a file is, and only these formats are handed
 * to the decoder (so SVG, PDF and other formats libvips could open are never parsed).
 */
export const IMAGE_FORMATS = ['jpeg', 'png', 'gif', 'webp', 'bmp', 'tiff', 'avif'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** How many leading bytes `sniffImageFormat` needs to decide. */
export const SNIFF_BYTES = 32;

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

const AVIF_BRANDS = new Set(['avif', 'avis']);
/** HEIC/HEIF brands: recognised so the error can say so, but not decodable by the bundled libvips. */
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1']);

/** The ISO-BMFF major and compatible brands of an `ftyp` box at the start of the file. */
function ftypBrands(bytes: Uint8Array): string[] {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return [];
  const size = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  const end = Math.min(bytes.length, Math.max(16, size));
  const brands = [ascii(bytes, 8, 12)];
  for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(bytes, i, i + 4));
  return brands;
}

/** The format of an image from its magic bytes, or null when it is not one we decode. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length < 12) return null;
  const b = (i: number) => bytes[i]!;
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpeg';
  if (b(0) === 0x89 && ascii(bytes, 1, 8) === 'PNG\r\n\x1a\n') return 'png';
  const head6 = ascii(bytes, 0, 6);
  if (head6 === 'GIF87a' || head6 === 'GIF89a') return 'gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  if (head6.startsWith('II*\0') || head6.startsWith('MM\0*')) return 'tiff';
  // "BM" alone is too weak (plain text can start with it): also require a known DIB header size.
  if (b(0) === 0x42 && b(1) === 0x4d && bytes.length >= 18) {
    const dibSize = b(14) | (b(15) << 8) | (b(16) << 16) | (b(17) << 24);
    if ([12, 40, 52, 56, 64, 108, 124].includes(dibSize)) return 'bmp';
  }
  const brands = ftypBrands(bytes);
  if (brands.some((x) => AVIF_BRANDS.has(x))) return 'avif';
  return null;
}

/** A short name for formats we recognise but do not decode, for clearer error messages. */
export function describeUnsupported(bytes: Uint8Array): string | null {
  const brands = ftypBrands(bytes);
  if (brands.some((x) => HEIF_BRANDS.has(x))) return 'HEIC/HEIF';
  const head = ascii(bytes, 0, Math.min(bytes.length, 256)).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'SVG';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'HTML';
  if (head.startsWith('%pdf')) return 'PDF';
  return null;
}
