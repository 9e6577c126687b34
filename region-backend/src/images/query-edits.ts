/**
 * The edits shoppers' queries go through before they reach a visual search: thumbnails, screenshots of a web
 * page that shows the picture, framed copies, half-area crops (plain and mirrored), small rotations, grey-scale,
 * text banners and heavy JPEG. Deterministic: every random choice comes from a generator seeded with the
 * picture's id, so reruns produce the same bytes. Used by a search service's self-evaluation and by
 * `npm run eval -- search-robustness`. sharp runs on libuv's thread pool, off the event loop.
 */
import sharp from 'sharp';
import { seededRandom } from '../util/seeded-random.js';

/** A source picture: at most ~1024 px on the longer side (stored blobs and evaluation photos are), any encoding. */
export interface Photo {
  png: Buffer;
  width: number;
  height: number;
}

/** A crop of about `areaFraction` of the photo at a random place; its aspect ratio varies by `stretch` around the photo's own. */
export function randomCrop(photo: Photo, areaFraction: number, rand: () => number, stretch = { min: 0.8, span: 0.4 }) {
  const factor = stretch.min + stretch.span * rand();
  const wf = Math.min(1, Math.sqrt(areaFraction) * factor);
  const hf = Math.min(1, areaFraction / wf);
  const width = Math.max(16, Math.round(photo.width * wf));
  const height = Math.max(16, Math.round(photo.height * hf));
  return { left: Math.floor(rand() * (photo.width - width + 1)), top: Math.floor(rand() * (photo.height - height + 1)), width, height };
}

export const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Pixel and time limits of one edit (sources are ≤ 1024 px; these bound anything else). */
const MAX_INPUT_PIXELS = 40_000_000;
const TIME_LIMIT_SECONDS = 20;
const input = (bytes: Buffer) => sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).timeout({ seconds: TIME_LIMIT_SECONDS });

export type SearchEdit =
  | 'crop50'
  | 'mirror-crop50'
  | 'rotate10'
  | 'grey'
  | 'text'
  | 'jpeg15'
  | 'thumb128'
  | 'thumb96'
  | 'screenshot'
  | 'frame';

export const SEARCH_EDITS: readonly SearchEdit[] = ['crop50', 'mirror-crop50', 'rotate10', 'grey', 'text', 'jpeg15', 'thumb128', 'thumb96', 'screenshot', 'frame'];

const crop = (photo: Photo, areaFraction: number, rand: () => number) => randomCrop(photo, areaFraction, rand, { min: 0.85, span: 0.3 });

function banner(width: number, height: number, rand: () => number): Buffer {
  const words = ['SALE 50% OFF', 'NEW ARRIVAL', 'www.example.com', 'LIMITED EDITION', '限时特价 FREE SHIPPING', 'BEST SELLER 2026'];
  const text = escapeXml(words[Math.floor(rand() * words.length)]!);
  const size = Math.round(height * (0.1 + 0.06 * rand()));
  const y = Math.round(height * (0.2 + 0.6 * rand()));
  // A band across the whole width, as store banners are, with the text on it.
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect x="0" y="${y - size * 1.1}" width="${width}" height="${size * 1.5}" fill="hsl(${Math.floor(rand() * 360)},70%,40%)" opacity="0.85"/>` +
      `<text x="50%" y="${y}" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${size}" fill="white">${text}</text></svg>`,
  );
}

/** A synthetic store page: header bar, navigation, text blocks, a price, and the picture somewhere inside. */
async function screenshot(photo: Photo, rand: () => number): Promise<Buffer> {
  const pageW = 1280;
  const pageH = 800;
  const share = 0.3 + 0.25 * rand();
  const fit = Math.sqrt((share * pageW * pageH) / (photo.width * photo.height));
  const w = Math.min(pageW - 80, Math.round(photo.width * fit));
  const h = Math.min(pageH - 140, Math.round(photo.height * fit));
  const left = 40 + Math.floor(rand() * (pageW - w - 80));
  const top = 100 + Math.floor(rand() * (pageH - h - 120));
  const lines: string[] = [];
  const textX = left > pageW / 2 ? 40 : Math.min(pageW - 300, left + w + 30);
  for (let i = 0; i < 12; i++) {
    const y = 150 + i * 34;
    if (y > pageH - 40) break;
    const length = 120 + Math.floor(rand() * 220);
    lines.push(`<rect x="${textX}" y="${y}" width="${length}" height="12" rx="3" fill="#9aa0a6"/>`);
  }
  const hue = Math.floor(rand() * 360);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pageW}" height="${pageH}">` +
    `<rect width="100%" height="100%" fill="${rand() < 0.5 ? '#ffffff' : '#f3f4f6'}"/>` +
    `<rect width="100%" height="64" fill="hsl(${hue},55%,30%)"/>` +
    `<text x="32" y="42" font-family="sans-serif" font-size="26" font-weight="bold" fill="white">Shop · Home · New · Sale</text>` +
    `<rect x="${pageW - 300}" y="18" width="260" height="28" rx="14" fill="white"/>` +
    lines.join('') +
    `<text x="${textX}" y="130" font-family="sans-serif" font-size="28" fill="#d93025">¥ ${(99 + Math.floor(rand() * 900)).toString()}</text>` +
    '</svg>';
  const picture = await input(photo.png).resize({ width: w, height: h, fit: 'fill' }).png().toBuffer();
  return sharp(Buffer.from(svg)).composite([{ input: picture, left, top }]).jpeg({ quality: 80 }).toBuffer();
}

/** The picture in a passe-partout or a coloured border, with a caption strip below. */
async function frame(photo: Photo, rand: () => number): Promise<Buffer> {
  const border = Math.round(Math.max(photo.width, photo.height) * (0.06 + 0.1 * rand()));
  const caption = Math.round(border * 1.5);
  const grey = Math.floor(200 + 55 * rand());
  const background = rand() < 0.5 ? { r: grey, g: grey, b: grey } : { r: Math.floor(rand() * 80), g: Math.floor(rand() * 80), b: Math.floor(rand() * 80) };
  const framed = await input(photo.png)
    .extend({ top: border, left: border, right: border, bottom: border + caption, background })
    .png()
    .toBuffer();
  const fw = photo.width + 2 * border;
  const fh = photo.height + 2 * border + caption;
  const text = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${fw}" height="${fh}"><text x="50%" y="${fh - caption / 2}" text-anchor="middle" ` +
      `font-family="serif" font-size="${Math.max(10, Math.round(caption * 0.45))}" fill="${background.r > 128 ? '#333' : '#eee'}">Photograph, 2026</text></svg>`,
  );
  return sharp(framed).composite([{ input: text }]).jpeg({ quality: 85 }).toBuffer();
}

/** One edited query of a photo, as a client would upload it. */
export async function makeSearchQuery(photo: Photo, edit: SearchEdit, seed: string): Promise<Buffer> {
  const rand = seededRandom(`${seed}/search/${edit}`);
  const base = () => input(photo.png);
  switch (edit) {
    case 'crop50':
      return base().extract(crop(photo, 0.5, rand)).jpeg({ quality: 90 }).toBuffer();
    case 'mirror-crop50':
      return base().extract(crop(photo, 0.5, rand)).flop().jpeg({ quality: 90 }).toBuffer();
    case 'rotate10': {
      const angle = (5 + 5 * rand()) * (rand() < 0.5 ? -1 : 1);
      return base().rotate(angle, { background: { r: 255, g: 255, b: 255 } }).jpeg({ quality: 90 }).toBuffer();
    }
    case 'grey':
      return base().greyscale().jpeg({ quality: 90 }).toBuffer();
    case 'text':
      return base().composite([{ input: banner(photo.width, photo.height, rand) }]).jpeg({ quality: 85 }).toBuffer();
    case 'jpeg15':
      return base().jpeg({ quality: 15 }).toBuffer();
    case 'thumb128':
      return base().resize({ width: 128, height: 128, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer();
    case 'thumb96':
      return base().resize({ width: 96, height: 96, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer();
    case 'screenshot':
      return screenshot(photo, rand);
    case 'frame':
      return frame(photo, rand);
  }
}
