/**
 * Generated training images for tests and benchmarks: families of clearly different content (a red disc, a
 * blue square, green stripes, …), each image with its own position, size, shade and background, drawn with
 * sharp from SVG. Deterministic for a (family, index).
 */
import sharp from 'sharp';
import { seededRandom, seedOf } from '../../src/util/seeded-random.js';

export const SHAPE_FAMILIES = ['disc', 'square', 'stripes', 'ring', 'cross', 'triangle', 'dots', 'checker', 'diagonal', 'bar'] as const;
export type ShapeFamily = (typeof SHAPE_FAMILIES)[number];

const SIZE = 128;

function shade(random: () => number, [r, g, b]: [number, number, number], jitter = 40): string {
  const j = () => Math.round((random() - 0.5) * jitter);
  const c = (v: number) => Math.max(0, Math.min(255, v + j()));
  return `rgb(${c(r)},${c(g)},${c(b)})`;
}

function shapeSvg(family: ShapeFamily, random: () => number): string {
  const bg = shade(random, [230, 230, 225], 30);
  const s = 40 + random() * 40;
  const x = 10 + random() * (SIZE - s - 20);
  const y = 10 + random() * (SIZE - s - 20);
  let body: string;
  switch (family) {
    case 'disc':
      body = `<circle cx="${x + s / 2}" cy="${y + s / 2}" r="${s / 2}" fill="${shade(random, [210, 30, 30])}"/>`;
      break;
    case 'square':
      body = `<rect x="${x}" y="${y}" width="${s}" height="${s}" fill="${shade(random, [30, 50, 200])}"/>`;
      break;
    case 'stripes': {
      const gap = 10 + Math.floor(random() * 8);
      const colour = shade(random, [30, 160, 40]);
      body = Array.from({ length: Math.ceil(SIZE / gap) }, (_, i) => `<rect x="0" y="${i * gap}" width="${SIZE}" height="${gap / 2}" fill="${colour}"/>`).join('');
      break;
    }
    case 'ring':
      body = `<circle cx="${x + s / 2}" cy="${y + s / 2}" r="${s / 2 - 4}" fill="none" stroke="${shade(random, [200, 140, 20])}" stroke-width="8"/>`;
      break;
    case 'cross': {
      const c = shade(random, [120, 30, 160]);
      body = `<rect x="${x + s / 3}" y="${y}" width="${s / 3}" height="${s}" fill="${c}"/><rect x="${x}" y="${y + s / 3}" width="${s}" height="${s / 3}" fill="${c}"/>`;
      break;
    }
    case 'triangle':
      body = `<polygon points="${x + s / 2},${y} ${x + s},${y + s} ${x},${y + s}" fill="${shade(random, [20, 150, 150])}"/>`;
      break;
    case 'dots': {
      const c = shade(random, [40, 40, 40]);
      const dots: string[] = [];
      for (let i = 0; i < 14; i++) dots.push(`<circle cx="${8 + random() * (SIZE - 16)}" cy="${8 + random() * (SIZE - 16)}" r="${3 + random() * 3}" fill="${c}"/>`);
      body = dots.join('');
      break;
    }
    case 'checker': {
      const cell = 12 + Math.floor(random() * 8);
      const c = shade(random, [60, 60, 60]);
      const cells: string[] = [];
      for (let i = 0; i * cell < SIZE; i++) for (let j = 0; j * cell < SIZE; j++) if ((i + j) % 2 === 0) cells.push(`<rect x="${i * cell}" y="${j * cell}" width="${cell}" height="${cell}" fill="${c}"/>`);
      body = cells.join('');
      break;
    }
    case 'diagonal': {
      const c = shade(random, [200, 90, 150]);
      body = Array.from({ length: 10 }, (_, i) => `<line x1="${i * 28 - 128}" y1="0" x2="${i * 28}" y2="${SIZE}" stroke="${c}" stroke-width="6"/>`).join('');
      break;
    }
    case 'bar':
      body = `<rect x="${x}" y="${SIZE / 2 - 8}" width="${Math.min(SIZE - x - 4, s * 1.6)}" height="16" fill="${shade(random, [110, 80, 40])}"/>`;
      break;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}"><rect width="100%" height="100%" fill="${bg}"/>${body}</svg>`;
}

/** One JPEG of a family; `index` picks the variation (any integer; different indexes give different images). */
export function shapeImage(family: ShapeFamily, index: number): Promise<Buffer> {
  const random = seededRandom(seedOf(`${family}:${index}`));
  return sharp(Buffer.from(shapeSvg(family, random))).jpeg({ quality: 90 }).toBuffer();
}
