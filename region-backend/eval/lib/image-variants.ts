/**
 * Deterministic image edits with sharp for retrieval evaluations: the query transformations of a
 * near-duplicate search (strong crops, flips, rescales, low-quality JPEG, colour shifts, text/logo/rectangle
 * overlays) and extra distractor crops. Every random choice comes from a generator seeded with the photo id, so
 * reruns produce the same bytes (and hit embedding caches).
 */
import sharp from 'sharp';
import { escapeXml, randomCrop, type Photo } from '../../src/images/query-edits.js';
import { seededRandom } from '../../src/util/seeded-random.js';

// Photos are oriented, alpha-free, at most 1024 px on the longer side, encoded as PNG (lossless master copy).
export { escapeXml, randomCrop, type Photo };


export async function loadPhoto(file: string | Buffer): Promise<Photo> {
  const { data, info } = await sharp(file)
    .rotate()
    .removeAlpha()
    .toColourspace('srgb')
    .resize({ width: 1024, height: 1024, fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}

export type QueryTransform = 'crop' | 'flip' | 'rescale' | 'jpeg' | 'colour' | 'text' | 'logo' | 'rectangle' | 'mixed';
export const QUERY_TRANSFORMS: readonly QueryTransform[] = ['crop', 'flip', 'rescale', 'jpeg', 'colour', 'text', 'logo', 'rectangle', 'mixed'];

function textOverlay(width: number, height: number, rand: () => number): Buffer {
  const words = ['SALE 50% OFF', 'NEW ARRIVAL', 'www.example.com', 'LIMITED EDITION', '限时特价 FREE SHIPPING'];
  const text = escapeXml(words[Math.floor(rand() * words.length)]!);
  const size = Math.round(height * (0.1 + 0.05 * rand()));
  const y = Math.round(height * (0.25 + 0.5 * rand()));
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<text x="50%" y="${y}" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${size}" ` +
      `fill="white" stroke="black" stroke-width="${Math.max(1, size / 16)}">${text}</text></svg>`,
  );
}

function logoOverlay(width: number, height: number, rand: () => number): Buffer {
  const side = Math.round(Math.min(width, height) * (0.2 + 0.1 * rand()));
  const corner = Math.floor(rand() * 4);
  const x = corner % 2 ? width - side - 8 : 8;
  const y = corner >= 2 ? height - side - 8 : 8;
  const hue = Math.floor(rand() * 360);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><g opacity="0.85">` +
      `<circle cx="${x + side / 2}" cy="${y + side / 2}" r="${side / 2}" fill="hsl(${hue},80%,45%)"/>` +
      `<text x="${x + side / 2}" y="${y + side * 0.68}" text-anchor="middle" font-family="sans-serif" font-weight="bold" ` +
      `font-size="${side * 0.5}" fill="white">iR</text></g></svg>`,
  );
}

/** One query derived from a photo; JPEG or PNG bytes as a client would upload them. */
export async function makeQuery(photo: Photo, transform: QueryTransform, seed: string): Promise<Buffer> {
  const rand = seededRandom(`${seed}/${transform}`);
  const base = () => sharp(photo.png);
  switch (transform) {
    case 'crop':
      return base().extract(randomCrop(photo, 0.4, rand)).jpeg({ quality: 90 }).toBuffer();
    case 'flip':
      return base().flop().jpeg({ quality: 90 }).toBuffer();
    case 'rescale': {
      const scale = 0.2 + 0.1 * rand();
      return base()
        .resize({ width: Math.max(48, Math.round(photo.width * scale)) })
        .jpeg({ quality: 85 })
        .toBuffer();
    }
    case 'jpeg':
      return base().jpeg({ quality: 8 }).toBuffer();
    case 'colour':
      return base()
        .modulate({ hue: Math.round(30 + 60 * rand()) * (rand() < 0.5 ? -1 : 1), saturation: 0.4 + 1.2 * rand(), brightness: 0.75 + 0.5 * rand() })
        .gamma(1 + 1.5 * rand())
        .jpeg({ quality: 85 })
        .toBuffer();
    case 'text':
      return base().composite([{ input: textOverlay(photo.width, photo.height, rand) }]).jpeg({ quality: 85 }).toBuffer();
    case 'logo':
      return base().composite([{ input: logoOverlay(photo.width, photo.height, rand) }]).jpeg({ quality: 85 }).toBuffer();
    case 'rectangle': {
      const r = randomCrop(photo, 0.2, rand);
      const colour = { r: Math.floor(rand() * 256), g: Math.floor(rand() * 256), b: Math.floor(rand() * 256) };
      const block = await sharp({ create: { width: r.width, height: r.height, channels: 3, background: colour } }).png().toBuffer();
      return base().composite([{ input: block, left: r.left, top: r.top }]).jpeg({ quality: 85 }).toBuffer();
    }
    case 'mixed': {
      const cropped = await base().extract(randomCrop(photo, 0.55, rand)).flop().png().toBuffer();
      return sharp(cropped)
        .modulate({ saturation: 0.7 + 0.6 * rand(), brightness: 0.85 + 0.3 * rand() })
        .jpeg({ quality: 30 })
        .toBuffer();
    }
  }
}

/** Extra gallery images cut from a photo: crops of about half its area at fixed places (corners, centre). */
export async function makeDistractorCrops(photo: Photo, count: number): Promise<Buffer[]> {
  const places = [
    [0, 0],
    [1, 1],
    [0.5, 0.5],
    [1, 0],
    [0, 1],
  ] as const;
  const w = Math.round(photo.width * 0.7);
  const h = Math.round(photo.height * 0.7);
  const out: Buffer[] = [];
  for (const [fx, fy] of places.slice(0, count)) {
    const region = { left: Math.round((photo.width - w) * fx), top: Math.round((photo.height - h) * fy), width: w, height: h };
    out.push(await sharp(photo.png).extract(region).jpeg({ quality: 90 }).toBuffer());
  }
  return out;
}

/** Augmented copies for learning PCA/whitening: the photo, its mirror and random crops. */
export async function makeTrainingViews(photo: Photo, seed: string, crops: number): Promise<Buffer[]> {
  const rand = seededRandom(`${seed}/train`);
  const out: Buffer[] = [photo.png, await sharp(photo.png).flop().png().toBuffer()];
  for (let i = 0; i < crops; i++) out.push(await sharp(photo.png).extract(randomCrop(photo, 0.3 + 0.4 * rand(), rand)).png().toBuffer());
  return out;
}
