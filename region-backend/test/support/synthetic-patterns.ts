/**
 * Synthetic fabric patterns with known labels, for the texture tests and the colour/texture evaluation:
 * stripes, plaid, polka dots, plain cloth (with shading), colour noise, two-colour blocks, camouflage and
 * leopard rosettes.
 * Every pattern gets mild shading and pixel noise so that "plain" is not trivially flat.
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import { seededRandom } from '../../src/util/seeded-random.js';

export type Color = readonly [number, number, number];

function render(size: number, seed: number, paint: (x: number, y: number) => Color): RgbImage {
  const random = seededRandom(seed);
  const data = new Uint8Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const c = paint(x, y);
      // Folds: a slow lightness wave; weave: pixel noise.
      const shade = 1 + 0.06 * Math.sin((x + 0.6 * y) / (size / 5));
      for (let ch = 0; ch < 3; ch++) {
        data[(y * size + x) * 3 + ch] = Math.max(0, Math.min(255, Math.round(c[ch]! * shade + (random() - 0.5) * 10)));
      }
    }
  }
  return { data, width: size, height: size };
}

export function stripes(size: number, angleDeg: number, period: number, a: Color, b: Color, seed = 1): RgbImage {
  const t = (angleDeg * Math.PI) / 180;
  return render(size, seed, (x, y) => {
    const u = x * Math.cos(t) + y * Math.sin(t);
    return ((u % period) + period) % period < period / 2 ? a : b;
  });
}

export function plaid(size: number, period: number, base: Color, line: Color, seed = 1): RgbImage {
  return render(size, seed, (x, y) => {
    const h = y % period < period / 3;
    const v = x % period < period / 3;
    if (h && v) return line.map((c, i) => Math.round((c + base[i]!) / 2 - 30)) as unknown as Color;
    return h || v ? line : base;
  });
}

export function polkaDots(size: number, spacing: number, radius: number, base: Color, dot: Color, seed = 1): RgbImage {
  return render(size, seed, (x, y) => {
    const row = Math.floor(y / spacing);
    const offset = row % 2 ? spacing / 2 : 0;
    const cx = Math.floor((x - offset) / spacing) * spacing + offset + spacing / 2;
    const cy = row * spacing + spacing / 2;
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius ? dot : base;
  });
}

export function plain(size: number, color: Color, seed = 1): RgbImage {
  return render(size, seed, () => color);
}

/** Independent random colours in 4×4 cells: no orientation, no period, many colours. */
export function colorNoise(size: number, seed = 1): RgbImage {
  const random = seededRandom(seed + 1000);
  const cells = new Map<number, Color>();
  return render(size, seed, (x, y) => {
    const key = Math.floor(y / 4) * size + Math.floor(x / 4);
    let c = cells.get(key);
    if (!c) {
      c = [Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256)];
      cells.set(key, c);
    }
    return c;
  });
}

/** Two large colour blocks (colour blocking), split diagonally. */
export function colorBlocks(size: number, a: Color, b: Color, seed = 1): RgbImage {
  return render(size, seed, (x, y) => (x + 0.4 * y < 0.7 * size ? a : b));
}

/** Irregular blobs of olive, brown, dark green and khaki: two octaves of smoothed random (value) noise, quantised. */
export function camouflage(size: number, seed = 1): RgbImage {
  const random = seededRandom(seed + 77);
  const octave = (cell: number) => {
    const n = Math.ceil(size / cell) + 2;
    const grid = Array.from({ length: n * n }, () => random());
    const smooth = (t: number) => t * t * (3 - 2 * t);
    return (x: number, y: number) => {
      const gx = x / cell, gy = y / cell;
      const x0 = Math.floor(gx), y0 = Math.floor(gy);
      const tx = smooth(gx - x0), ty = smooth(gy - y0);
      const v = (i: number, j: number) => grid[(y0 + j) * n + x0 + i]!;
      return (v(0, 0) * (1 - tx) + v(1, 0) * tx) * (1 - ty) + (v(0, 1) * (1 - tx) + v(1, 1) * tx) * ty;
    };
  };
  const coarse = octave(size / 5);
  const fine = octave(size / 12);
  const palette: Color[] = [[85, 90, 50], [110, 80, 50], [45, 60, 35], [160, 150, 110]];
  return render(size, seed, (x, y) => {
    const v = 0.7 * coarse(x, y) + 0.3 * fine(x, y);
    return palette[Math.max(0, Math.min(3, Math.floor((v - 0.2) * 6.7)))]!;
  });
}

/** Leopard rosettes: irregular dark rings with brown centres, scattered on tan. */
export function leopard(size: number, seed = 1): RgbImage {
  const random = seededRandom(seed + 313);
  const spots = Array.from({ length: Math.round((size * size) / 700) }, () => ({
    x: random() * size, y: random() * size, r: 5 + random() * 6, sx: 0.7 + random() * 0.6,
  }));
  const tan: Color = [196, 146, 84];
  const ring: Color = [40, 30, 22];
  const centre: Color = [150, 95, 45];
  return render(size, seed, (x, y) => {
    for (const s of spots) {
      const d = Math.hypot((x - s.x) * s.sx, y - s.y);
      if (d < s.r) return d > 0.6 * s.r ? ring : centre;
    }
    return tan;
  });
}
