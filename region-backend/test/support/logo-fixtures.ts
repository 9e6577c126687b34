/**
 * Synthetic logos and scenes for logo-matching tests and the evaluation: distinctive emblems drawn as SVG
 * (shapes, stripes, text) rendered with sharp, cluttered backgrounds (gradients, noise, unrelated shapes and
 * words), and placement of a logo into a picture under a known homography (scale, rotation, perspective), so
 * the true box is exact. Every random choice comes from a seeded generator: the same seed gives the same bytes.
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import sharp, { type OutputInfo } from 'sharp';
import type { Box, Point, Quad } from '../../src/vision/logo/logo-geometry.js';
import { seededRandom } from '../../src/util/seeded-random.js';


const WORDS = ['ACME', 'NOVA', 'ORBIT', 'KESTREL', 'VANTA', 'LUMEN', 'ZEPHYR', 'QUILL', 'MARLIN', 'TORQUE', 'BRIO', 'SOLACE'];
const TAGLINES = ['QUALITY SINCE 1987', 'ENGINEERED TO LAST', 'FRESH EVERY DAY', 'MADE IN HANGZHOU', 'TRUSTED WORLDWIDE', 'ORIGINAL FORMULA'];

export interface LogoArtwork {
  name: string;
  png: Buffer;
  width: number;
  height: number;
}

const pick = <T>(items: readonly T[], rand: () => number): T => items[Math.floor(rand() * items.length)]!;

const EMBLEMS = ['star-ring', 'sunburst', 'chevrons', 'hex-grid', 'monogram', 'waves'] as const;
type Emblem = (typeof EMBLEMS)[number];

function polygon(cx: number, cy: number, radii: number[], turn: number): string {
  return radii.map((rr, i) => {
    const a = (2 * Math.PI * i) / radii.length + turn;
    return `${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`;
  }).join(' ');
}

function emblem(kind: Emblem, cx: number, cy: number, r: number, c: { base: string; accent: string; light: string }, word: string, rand: () => number): string {
  const parts: string[] = [];
  switch (kind) {
    case 'star-ring': {
      parts.push(`<circle cx="${cx}" cy="${cy}" r="${r}" fill="${c.light}" stroke="${c.accent}" stroke-width="${r * 0.12}"/>`);
      for (let i = 0; i < 5; i++) parts.push(`<rect x="${cx - r * 0.62}" y="${cy - r * 0.55 + i * r * 0.24}" width="${r * 1.24}" height="${r * 0.1}" fill="${i % 2 ? c.base : c.accent}" opacity="0.85"/>`);
      const spikes = 5 + Math.floor(rand() * 4);
      parts.push(`<polygon points="${polygon(cx, cy, Array.from({ length: spikes * 2 }, (_, i) => (i % 2 ? r * 0.3 : r * 0.72)), -Math.PI / 2)}" fill="${c.base}" stroke="#fff" stroke-width="${r * 0.04}"/>`);
      break;
    }
    case 'sunburst': {
      parts.push(`<circle cx="${cx}" cy="${cy}" r="${r}" fill="${c.accent}"/>`);
      const rays = 10 + Math.floor(rand() * 8);
      for (let i = 0; i < rays; i++) {
        const a = (2 * Math.PI * i) / rays;
        parts.push(`<polygon points="${cx},${cy} ${cx + r * Math.cos(a - 0.12)},${cy + r * Math.sin(a - 0.12)} ${cx + r * Math.cos(a + 0.12)},${cy + r * Math.sin(a + 0.12)}" fill="${i % 2 ? c.light : c.base}"/>`);
      }
      parts.push(`<circle cx="${cx}" cy="${cy}" r="${r * 0.32}" fill="${c.light}" stroke="${c.base}" stroke-width="${r * 0.06}"/>`);
      break;
    }
    case 'chevrons': {
      parts.push(`<path d="M ${cx - r} ${cy - r} h ${2 * r} v ${r} q 0 ${r} ${-r} ${r * 1.1} q ${-r} ${-r * 0.1} ${-r} ${-r * 1.1} z" fill="${c.light}"/>`);
      for (let i = 0; i < 3; i++) {
        const y = cy - r * 0.6 + i * r * 0.45;
        parts.push(`<polyline points="${cx - r * 0.7},${y} ${cx},${y + r * 0.35} ${cx + r * 0.7},${y}" fill="none" stroke="${i === 1 ? c.accent : c.base}" stroke-width="${r * 0.16}"/>`);
      }
      break;
    }
    case 'hex-grid': {
      parts.push(`<polygon points="${polygon(cx, cy, [r, r, r, r, r, r], Math.PI / 6)}" fill="${c.base}"/>`);
      const cell = r * 0.28;
      for (let gy = -2; gy <= 2; gy++) {
        for (let gx = -2; gx <= 2; gx++) {
          const hx = cx + gx * cell * 1.75 + (gy % 2 ? cell * 0.87 : 0);
          const hy = cy + gy * cell * 1.5;
          if (Math.hypot(hx - cx, hy - cy) > r * 0.75) continue;
          parts.push(`<polygon points="${polygon(hx, hy, [cell * 0.8, cell * 0.8, cell * 0.8, cell * 0.8, cell * 0.8, cell * 0.8], Math.PI / 6)}" fill="${rand() < 0.5 ? c.accent : c.light}"/>`);
        }
      }
      break;
    }
    case 'monogram': {
      parts.push(`<rect x="${cx - r}" y="${cy - r}" width="${2 * r}" height="${2 * r}" rx="${r * 0.2}" fill="${c.light}" stroke="${c.accent}" stroke-width="${r * 0.1}"/>`);
      parts.push(`<text x="${cx - r * 0.55}" y="${cy + r * 0.55}" font-family="DejaVu Serif" font-weight="bold" font-size="${r * 1.5}" fill="${c.base}">${word[0]}</text>`);
      parts.push(`<circle cx="${cx + r * 0.6}" cy="${cy - r * 0.6}" r="${r * 0.18}" fill="${c.accent}"/>`);
      break;
    }
    case 'waves': {
      parts.push(`<circle cx="${cx}" cy="${cy}" r="${r}" fill="${c.base}"/>`);
      for (let i = 0; i < 4; i++) {
        const y = cy - r * 0.5 + i * r * 0.33;
        parts.push(`<path d="M ${cx - r * 0.8} ${y} q ${r * 0.2} ${-r * 0.25} ${r * 0.4} 0 t ${r * 0.4} 0 t ${r * 0.4} 0 t ${r * 0.4} 0" fill="none" stroke="${i % 2 ? c.light : c.accent}" stroke-width="${r * 0.1}"/>`);
      }
      break;
    }
  }
  // Marks at random places make every emblem unique, even between brands that drew the same kind.
  const marks = 4 + Math.floor(rand() * 4);
  for (let i = 0; i < marks; i++) {
    const a = rand() * 2 * Math.PI;
    const d = r * (0.2 + 0.6 * rand());
    const mx = cx + d * Math.cos(a);
    const my = cy + d * Math.sin(a);
    const size = r * (0.08 + 0.12 * rand());
    const fill = [c.base, c.accent, c.light, '#ffffff', '#111111'][Math.floor(rand() * 5)];
    const shape = Math.floor(rand() * 3);
    if (shape === 0) parts.push(`<circle cx="${mx.toFixed(1)}" cy="${my.toFixed(1)}" r="${size.toFixed(1)}" fill="${fill}"/>`);
    else if (shape === 1) parts.push(`<rect x="${(mx - size).toFixed(1)}" y="${(my - size).toFixed(1)}" width="${(2 * size).toFixed(1)}" height="${(2 * size).toFixed(1)}" fill="${fill}" transform="rotate(${Math.floor(rand() * 90)} ${mx.toFixed(1)} ${my.toFixed(1)})"/>`);
    else parts.push(`<polygon points="${polygon(mx, my, [size * 1.3, size * 1.3, size * 1.3], rand() * Math.PI)}" fill="${fill}"/>`);
  }
  return `<g transform="rotate(${Math.round((rand() - 0.5) * 50)} ${cx.toFixed(1)} ${cy.toFixed(1)})">${parts.join('')}</g>`;
}

/**
 * A textured logo: a badge (rounded rectangle, circle or shield), an emblem of stars, rings and stripes, the
 * brand word and a tagline. `transparent` leaves the area outside the badge transparent.
 */
export async function renderLogo(seed: string, options: { width?: number; transparent?: boolean; word?: string } = {}): Promise<LogoArtwork> {
  const rand = seededRandom(`logo:${seed}`);
  const width = options.width ?? 480;
  const wide = rand() < 0.6;
  const height = Math.round(width * (wide ? 0.42 + rand() * 0.12 : 0.9 + rand() * 0.2));
  const word = options.word ?? pick(WORDS, rand);
  const hue = Math.floor(rand() * 360);
  const base = `hsl(${hue},${55 + rand() * 30}%,${25 + rand() * 15}%)`;
  const accent = `hsl(${(hue + 120 + rand() * 120) % 360},85%,55%)`;
  const light = `hsl(${(hue + 40) % 360},70%,88%)`;
  const e = Math.min(width, height);
  const parts: string[] = [];
  const badge = pick(['rect', 'circle', 'shield'], rand);
  if (badge === 'rect' || !wide) parts.push(`<rect x="3" y="3" width="${width - 6}" height="${height - 6}" rx="${e * 0.12}" fill="${base}"/>`);
  else parts.push(`<rect x="${e * 0.3}" y="${height * 0.1}" width="${width - e * 0.35}" height="${height * 0.8}" rx="${e * 0.06}" fill="${base}"/>`);
  // Emblem, on the left (wide) or top (tall): one of several designs, so different brands differ.
  const cx = wide ? e * 0.5 : width / 2;
  const cy = wide ? height / 2 : height * 0.36;
  const r = e * (wide ? 0.42 : 0.28);
  parts.push(emblem(pick(EMBLEMS, rand), cx, cy, r, { base, accent, light }, word, rand));
  // Text: the brand word and a tagline.
  const tx = wide ? e * 1.02 : width * 0.08;
  const ty = wide ? height * 0.5 : height * 0.78;
  const size = wide ? Math.min(height * 0.3, ((width - tx) / word.length) * 1.15) : Math.min(height * 0.16, (width * 0.84 / word.length) * 1.2);
  const font = pick(['DejaVu Sans', 'DejaVu Serif', 'Liberation Sans', 'Liberation Serif'], rand);
  parts.push(`<text x="${tx}" y="${ty}" font-family="${font}" font-weight="bold" font-size="${size.toFixed(1)}" fill="#fff">${word}</text>`);
  parts.push(`<text x="${tx}" y="${ty + size * 0.62}" font-family="DejaVu Sans" font-size="${(size * 0.36).toFixed(1)}" fill="${light}">${pick(TAGLINES, rand)}</text>`);
  parts.push(`<rect x="${tx}" y="${ty + size * 0.8}" width="${(width - tx) * 0.55}" height="${size * 0.08}" fill="${accent}"/>`);
  // A corner mark: a triangle and a chevron.
  const mx = width - e * 0.16;
  const my = wide ? height * 0.24 : height * 0.1;
  parts.push(`<path d="M ${mx} ${my - e * 0.06} l ${e * 0.07} ${e * 0.1} l ${-e * 0.14} 0 z" fill="${accent}"/>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${options.transparent ? '' : `<rect width="100%" height="100%" fill="#ffffff"/>`}${parts.join('')}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { name: `${word} ${seed}`, png, width, height };
}

/** A cluttered picture: colour gradient, unrelated shapes and words, then pixel noise. */
export async function clutterBackground(seed: string, width = 800, height = 600): Promise<RgbImage> {
  const rand = seededRandom(`bg:${seed}`);
  const hue = Math.floor(rand() * 360);
  const parts: string[] = [
    `<defs><linearGradient id="g" x1="0" y1="0" x2="${rand().toFixed(2)}" y2="1"><stop offset="0" stop-color="hsl(${hue},40%,70%)"/><stop offset="1" stop-color="hsl(${(hue + 90) % 360},35%,30%)"/></linearGradient></defs>`,
    `<rect width="100%" height="100%" fill="url(#g)"/>`,
  ];
  for (let i = 0; i < 40; i++) {
    const x = rand() * width;
    const y = rand() * height;
    const s = 10 + rand() * 90;
    const fill = `hsl(${Math.floor(rand() * 360)},${Math.floor(rand() * 60)}%,${Math.floor(20 + rand() * 60)}%)`;
    const kind = Math.floor(rand() * 4);
    if (kind === 0) parts.push(`<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${fill}" opacity="0.8"/>`);
    else if (kind === 1) parts.push(`<rect x="${x}" y="${y}" width="${s}" height="${s * (0.3 + rand())}" fill="${fill}" transform="rotate(${rand() * 90} ${x} ${y})"/>`);
    else if (kind === 2) parts.push(`<line x1="${x}" y1="${y}" x2="${x + (rand() - 0.5) * 300}" y2="${y + (rand() - 0.5) * 300}" stroke="${fill}" stroke-width="${1 + rand() * 6}"/>`);
    else parts.push(`<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${12 + rand() * 30}" fill="${fill}">${pick(['OPEN', 'SALE', 'Main St', 'EXIT', '24h', 'CAFE', 'No. 7'], rand)}</text>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
  const { data } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(0, Math.min(255, out[i]! + Math.round((rand() - 0.5) * 24)));
  return { data: out, width, height };
}

/** Homography (row-major 3×3) taking the four `from` corners to the four `to` corners. */
export function homographyFromQuads(from: Quad, to: Quad): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  // Gaussian elimination with partial pivoting on the 8×9 augmented matrix.
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k < 9; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  return [...Array.from({ length: 8 }, (_, i) => a[i]![8]! / a[i]![i]!), 1];
}

export interface Placement {
  /** Centre of the logo, as fractions of the picture. */
  cx: number;
  cy: number;
  /** Logo width as a fraction of the picture width. */
  width: number;
  /** Rotation in degrees (clockwise). */
  rotation?: number;
  /** Perspective: how much narrower the far edge is (0 none, 0.3 strong); positive tilts the right edge away. */
  tilt?: number;
}

export interface PlacedLogo {
  image: RgbImage;
  /** Normalised bounding box of the placed artwork. */
  box: Box;
  quad: Quad;
}

function rgbaOf(png: Buffer): Promise<{ data: Buffer; info: OutputInfo }> {
  return sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
}

/** Pastes a logo into a picture under the placement's homography (bilinear sampling, alpha blending). */
export async function placeLogo(background: RgbImage, logoPng: Buffer, placement: Placement): Promise<PlacedLogo> {
  const { data: src, info } = await rgbaOf(logoPng);
  const sw = info.width;
  const sh = info.height;
  const W = background.width;
  const H = background.height;
  const w = placement.width * W;
  const h = (w * sh) / sw;
  const tilt = placement.tilt ?? 0;
  // Corners around the centre, far edge shortened for perspective, then rotated.
  const local: Point[] = [
    [-w / 2, -h / 2 * (1 - Math.min(0, tilt))],
    [w / 2, -h / 2 * (1 - Math.max(0, tilt))],
    [w / 2, h / 2 * (1 - Math.max(0, tilt))],
    [-w / 2, h / 2 * (1 - Math.min(0, tilt))],
  ];
  const a = ((placement.rotation ?? 0) * Math.PI) / 180;
  const quad = local.map(([x, y]) => [placement.cx * W + x * Math.cos(a) - y * Math.sin(a), placement.cy * H + x * Math.sin(a) + y * Math.cos(a)] as Point) as Quad;
  const inverse = homographyFromQuads(quad, [[0, 0], [sw, 0], [sw, sh], [0, sh]]);
  const out = new Uint8Array(background.data);
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(W - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(H - 1, Math.ceil(Math.max(...ys)));
  const m = inverse;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const d = m[6]! * x + m[7]! * y + m[8]!;
      const u = (m[0]! * x + m[1]! * y + m[2]!) / d;
      const v = (m[3]! * x + m[4]! * y + m[5]!) / d;
      if (u < 0 || v < 0 || u > sw - 1 || v > sh - 1) continue;
      const ux = Math.floor(u);
      const vy = Math.floor(v);
      const fx = u - ux;
      const fy = v - vy;
      const sample = (c: number) => {
        const at = (xx: number, yy: number) => src[(Math.min(sh - 1, yy) * sw + Math.min(sw - 1, xx)) * 4 + c]!;
        return (at(ux, vy) * (1 - fx) + at(ux + 1, vy) * fx) * (1 - fy) + (at(ux, vy + 1) * (1 - fx) + at(ux + 1, vy + 1) * fx) * fy;
      };
      const alpha = sample(3) / 255;
      if (alpha <= 0) continue;
      const i = (y * W + x) * 3;
      for (let c = 0; c < 3; c++) out[i + c] = Math.round(out[i + c]! * (1 - alpha) + sample(c) * alpha);
    }
  }
  const bx0 = Math.max(0, Math.min(...xs));
  const by0 = Math.max(0, Math.min(...ys));
  const bx1 = Math.min(W, Math.max(...xs));
  const by1 = Math.min(H, Math.max(...ys));
  return { image: { data: out, width: W, height: H }, box: [bx0 / W, by0 / H, (bx1 - bx0) / W, (by1 - by0) / H], quad };
}

export function encodePng(image: RgbImage): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();
}

export async function encodeJpeg(image: RgbImage, quality: number, blurSigma = 0): Promise<Buffer> {
  let pipeline = sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
  if (blurSigma >= 0.3) pipeline = pipeline.blur(blurSigma);
  return pipeline.jpeg({ quality }).toBuffer();
}

export async function decodeRgb(bytes: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}
