/**
 * Query kinds where the picture is only part of what the query shows, or is turned: the picture at about
 * 40 % of the width inside a collage of other photos, turned by 90°, 180° or 270°, and photographed off a
 * screen under strong perspective. Deterministic (seeded with the photo's id).
 */
import sharp from 'sharp';
import type { Photo } from '../../src/images/query-edits.js';
import { seededRandom } from '../../src/util/seeded-random.js';

export type RegionEdit = 'collage40' | 'turn90' | 'turn180' | 'turn270' | 'screen-photo';
export const REGION_EDITS: readonly RegionEdit[] = ['collage40', 'turn90', 'turn180', 'turn270', 'screen-photo'];

const jpeg = (s: ReturnType<typeof sharp>, quality = 88) => s.jpeg({ quality }).toBuffer();

/** A 1024 × 768 collage of four other photos with the picture pasted at 36–44 % of the width somewhere on it. */
async function collage(photo: Photo, hosts: Photo[], rand: () => number): Promise<Buffer> {
  const W = 1024;
  const H = 768;
  const tiles = await Promise.all(
    [0, 1, 2, 3].map(async (k) => {
      const host = hosts[Math.floor(rand() * hosts.length)]!;
      const input = await sharp(host.png).resize(W / 2, H / 2, { fit: 'cover' }).png().toBuffer();
      return { input, left: (k % 2) * (W / 2), top: Math.floor(k / 2) * (H / 2) };
    }),
  );
  const width = Math.round(W * (0.36 + 0.08 * rand()));
  const height = Math.min(H - 8, Math.round((width * photo.height) / photo.width));
  const inset = await sharp(photo.png).resize(width, height, { fit: 'fill' }).png().toBuffer();
  const left = Math.floor(rand() * (W - width));
  const top = Math.floor(rand() * (H - height));
  return jpeg(sharp({ create: { width: W, height: H, channels: 3, background: '#ffffff' } }).composite([...tiles, { input: inset, left, top }]));
}

/**
 * The picture shown on a screen with a dark bezel, photographed at an angle: a perspective warp (one side
 * 55–70 % the height of the other), a grey wall around it, a little blur, lower contrast and a warm cast.
 */
async function screenPhoto(photo: Photo, rand: () => number): Promise<Buffer> {
  const bezel = Math.round(Math.max(photo.width, photo.height) * 0.03);
  const { data: src, info } = await sharp(photo.png)
    .extend({ top: bezel, bottom: bezel, left: bezel, right: bezel, background: '#111111' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const sw = info.width;
  const sh = info.height;
  const W = 1024;
  const H = Math.round((W * 3) / 4);
  const near = 0.55 + 0.15 * rand();
  const leftNear = rand() < 0.5;
  // Corners of the screen in the photograph: top-left, top-right, bottom-right, bottom-left.
  const x0 = W * 0.08;
  const x1 = W * 0.92;
  const hFar = H * 0.84;
  const hNear = hFar * near;
  const [hl, hr] = leftNear ? [hFar, hNear] : [hNear, hFar];
  const quad = [
    [x0, (H - hl) / 2],
    [x1, (H - hr) / 2],
    [x1, (H + hr) / 2],
    [x0, (H + hl) / 2],
  ] as const;
  const m = homography([[0, 0], [sw, 0], [sw, sh], [0, sh]], quad);
  const inv = invert3(m);
  const out = Buffer.alloc(W * H * 3);
  const warm = [1.0, 0.93, 0.8];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const d = (y * W + x) * 3;
      const w = inv[6]! * x + inv[7]! * y + inv[8]!;
      const u = (inv[0]! * x + inv[1]! * y + inv[2]!) / w;
      const v = (inv[3]! * x + inv[4]! * y + inv[5]!) / w;
      if (u < 0 || v < 0 || u >= sw - 1 || v >= sh - 1) {
        const wall = 150 + 20 * Math.sin(y / 40);
        out[d] = wall;
        out[d + 1] = wall - 6;
        out[d + 2] = wall - 14;
        continue;
      }
      const ui = Math.floor(u);
      const vi = Math.floor(v);
      const fu = u - ui;
      const fv = v - vi;
      for (let c = 0; c < 3; c++) {
        const p = (r: number, col: number) => src[(r * sw + col) * 3 + c]!;
        const value = (p(vi, ui) * (1 - fu) + p(vi, ui + 1) * fu) * (1 - fv) + (p(vi + 1, ui) * (1 - fu) + p(vi + 1, ui + 1) * fu) * fv;
        out[d + c] = Math.min(255, (30 + value * 0.8) * warm[c]!);
      }
    }
  }
  return jpeg(sharp(out, { raw: { width: W, height: H, channels: 3 } }).blur(0.8), 80);
}

/** The 3 × 3 homography (row-major, h22 = 1) taking four points to four others. */
function homography(from: readonly (readonly number[])[], to: readonly (readonly number[])[]): number[] {
  const A: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    A.push([x!, y!, 1, 0, 0, 0, -u! * x!, -u! * y!, u!]);
    A.push([0, 0, 0, x!, y!, 1, -v! * x!, -v! * y!, v!]);
  }
  // Gauss-Jordan on the 8 × 9 augmented system.
  for (let c = 0; c < 8; c++) {
    let pivot = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[pivot]![c]!)) pivot = r;
    [A[c], A[pivot]] = [A[pivot]!, A[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r]![c]! / A[c]![c]!;
      for (let k = c; k < 9; k++) A[r]![k] = A[r]![k]! - f * A[c]![k]!;
    }
  }
  return [...A.map((row, i) => row[8]! / row[i]!), 1];
}

function invert3(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m as [number, number, number, number, number, number, number, number, number];
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map((v) => v / det);
}

export async function makeRegionQuery(photo: Photo, edit: RegionEdit, seed: string, hosts: Photo[]): Promise<Buffer> {
  const rand = seededRandom(`${edit}:${seed}`);
  switch (edit) {
    case 'collage40':
      return collage(photo, hosts, rand);
    case 'turn90':
      return jpeg(sharp(photo.png).rotate(90));
    case 'turn180':
      return jpeg(sharp(photo.png).rotate(180));
    case 'turn270':
      return jpeg(sharp(photo.png).rotate(270));
    case 'screen-photo':
      return screenPhoto(photo, rand);
  }
}
