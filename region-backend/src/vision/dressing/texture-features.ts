/**
 * Classical texture measurements of a garment region (a lightness patch, its mask and its colours):
 * - gradient orientation statistics (one dominant orientation = stripes, two roughly orthogonal = plaid,
 *   none = dots or irregular prints) and edge density (how busy the surface is);
 * - spectral periodicity: the share of the windowed patch's AC power in the strongest narrow peaks of its
 *   2-D power spectrum, and the directions of those peaks;
 * - Laplacian-of-Gaussian blobs (count and size regularity) for dots and spots;
 * - colour clusters (CIELAB k-means) for contrast, camouflage and print colours.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { clusterColors, type ColorCluster } from '../color/color-clustering.js';
import { rgbToLab } from '../color/color-space.js';
import type { Mask } from '../color/palette-extraction.js';
import { resizeRgb } from '../runtime/pixels.js';

export const PATCH = 128;

export interface TextureFeatures {
  /** Share of masked pixels kept in the patch. */
  coverage: number;
  lightnessStd: number;
  /** Share of pixels whose lightness gradient exceeds a fixed step. */
  edgeDensity: number;
  /** Structure-tensor coherence 0..1 (1 = one orientation everywhere). */
  coherence: number;
  /** Share of gradient energy within ±12° of the strongest orientation, and of the strongest one ≥ 45° away. */
  orientation1: number;
  orientation2: number;
  /** Angle in degrees between those two orientations (0..90). */
  orientationGap: number;
  /** Spectral peaks: share of AC power in the strongest peak, and the peak directions (degrees, 0..180). */
  peakShare: number;
  /** Frequency of the strongest peak, in cycles per patch (a lone straight edge peaks at the lowest kept frequency). */
  peakRadius: number;
  peakDirections: number[];
  /** LoG blobs: count (on the patch halved to 64×64), coefficient of variation of their radii, share of area covered. */
  blobCount: number;
  blobSizeCv: number;
  blobCoverage: number;
  colors: ColorCluster[];
}

/** Measures a region: `image` is the region's crop, `mask` covers the crop (any resolution). */
export function textureFeatures(image: RgbImage, mask: Mask | null): TextureFeatures {
  const patch = resizeRgb(image, PATCH, PATCH);
  const n = PATCH * PATCH;
  const inside = new Uint8Array(n);
  const L = new Float32Array(n);
  const lab = new Float32Array(n * 3);
  let count = 0;
  let sum = 0;
  for (let y = 0; y < PATCH; y++) {
    for (let x = 0; x < PATCH; x++) {
      const i = y * PATCH + x;
      let on = true;
      if (mask) {
        const mx = Math.min(mask.width - 1, Math.floor(((x + 0.5) / PATCH) * mask.width));
        const my = Math.min(mask.height - 1, Math.floor(((y + 0.5) / PATCH) * mask.height));
        on = mask.data[my * mask.width + mx]! >= 128;
      }
      const c = rgbToLab(patch.data[i * 3]!, patch.data[i * 3 + 1]!, patch.data[i * 3 + 2]!);
      lab.set(c, i * 3);
      L[i] = c[0];
      if (on) {
        inside[i] = 1;
        count++;
        sum += c[0];
      }
    }
  }
  const mean = count ? sum / count : 0;
  let variance = 0;
  for (let i = 0; i < n; i++) if (inside[i]) variance += (L[i]! - mean) ** 2;
  const lightnessStd = count ? Math.sqrt(variance / count) : 0;
  // Outside the mask the patch is flat at the mean, so the outline adds no texture of its own.
  const flat = new Float32Array(n);
  for (let i = 0; i < n; i++) flat[i] = inside[i] ? L[i]! : mean;

  const gradients = orientationStats(flat, inside);
  const spectrum = spectralPeaks(flat, inside, mean);
  const blobs = logBlobs(flat, inside);

  const samples: number[] = [];
  for (let i = 0; i < n; i += 2) if (inside[i]) samples.push(lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!);
  const colors = clusterColors(Float32Array.from(samples), new Float32Array(samples.length / 3).fill(1), { k: 6, mergeDeltaE: 10 });
  return { coverage: count / n, lightnessStd, ...gradients, ...spectrum, ...blobs, colors };
}

function orientationStats(L: Float32Array, inside: Uint8Array) {
  const bins = new Float64Array(180);
  let jxx = 0, jyy = 0, jxy = 0, edges = 0, total = 0, energy = 0;
  for (let y = 1; y < PATCH - 1; y++) {
    for (let x = 1; x < PATCH - 1; x++) {
      const i = y * PATCH + x;
      if (!inside[i]) continue;
      total++;
      // Sobel
      const gx = L[i - PATCH + 1]! + 2 * L[i + 1]! + L[i + PATCH + 1]! - L[i - PATCH - 1]! - 2 * L[i - 1]! - L[i + PATCH - 1]!;
      const gy = L[i + PATCH - 1]! + 2 * L[i + PATCH]! + L[i + PATCH + 1]! - L[i - PATCH - 1]! - 2 * L[i - PATCH]! - L[i - PATCH + 1]!;
      const m2 = gx * gx + gy * gy;
      if (m2 > 24 * 24) edges++;
      jxx += gx * gx;
      jyy += gy * gy;
      jxy += gx * gy;
      if (m2 < 4) continue;
      let angle = (Math.atan2(gy, gx) * 180) / Math.PI;
      if (angle < 0) angle += 180;
      bins[Math.floor(angle) % 180]! += m2;
      energy += m2;
    }
  }
  const coherence = jxx + jyy > 0 ? Math.sqrt((jxx - jyy) ** 2 + 4 * jxy * jxy) / (jxx + jyy) : 0;
  const windowShare = (centre: number) => {
    let s = 0;
    for (let d = -12; d <= 12; d++) s += bins[(centre + d + 180) % 180]!;
    return energy > 0 ? s / energy : 0;
  };
  let best = 0, bestShare = -1;
  for (let a = 0; a < 180; a++) {
    const s = windowShare(a);
    if (s > bestShare) {
      bestShare = s;
      best = a;
    }
  }
  let second = 0, secondShare = 0;
  for (let a = 0; a < 180; a++) {
    const gap = Math.min(Math.abs(a - best), 180 - Math.abs(a - best));
    if (gap < 45) continue;
    const s = windowShare(a);
    if (s > secondShare) {
      secondShare = s;
      second = a;
    }
  }
  const gap = Math.min(Math.abs(second - best), 180 - Math.abs(second - best));
  return {
    edgeDensity: total ? edges / total : 0,
    coherence,
    orientation1: Math.max(0, bestShare),
    orientation2: secondShare,
    orientationGap: gap,
  };
}

/** In-place radix-2 FFT of one line. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = (-2 * Math.PI) / len;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let i = 0; i < n; i += len) {
      let cr = 1, ci = 0;
      for (let j = 0; j < len / 2; j++) {
        const a = i + j;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const ncr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = ncr;
      }
    }
  }
}

function spectralPeaks(L: Float32Array, inside: Uint8Array, mean: number) {
  const N = PATCH;
  const re = new Float64Array(N * N);
  const im = new Float64Array(N * N);
  for (let y = 0; y < N; y++) {
    const wy = 0.5 - 0.5 * Math.cos((2 * Math.PI * (y + 0.5)) / N);
    for (let x = 0; x < N; x++) {
      const wx = 0.5 - 0.5 * Math.cos((2 * Math.PI * (x + 0.5)) / N);
      const i = y * N + x;
      re[i] = inside[i] ? (L[i]! - mean) * wx * wy : 0;
    }
  }
  const rowRe = new Float64Array(N);
  const rowIm = new Float64Array(N);
  for (let pass = 0; pass < 2; pass++) {
    for (let a = 0; a < N; a++) {
      for (let b = 0; b < N; b++) {
        const i = pass === 0 ? a * N + b : b * N + a;
        rowRe[b] = re[i]!;
        rowIm[b] = im[i]!;
      }
      fft(rowRe, rowIm);
      for (let b = 0; b < N; b++) {
        const i = pass === 0 ? a * N + b : b * N + a;
        re[i] = rowRe[b]!;
        im[i] = rowIm[b]!;
      }
    }
  }
  // Power on a centred grid; frequencies below 3 cycles per patch are shading and folds, not pattern.
  const power = new Float64Array(N * N);
  let total = 0;
  for (let v = 0; v < N; v++) {
    for (let u = 0; u < N; u++) {
      const fu = u < N / 2 ? u : u - N;
      const fv = v < N / 2 ? v : v - N;
      if (fu * fu + fv * fv < 9) continue;
      const p = re[v * N + u]! ** 2 + im[v * N + u]! ** 2;
      power[(fv + N / 2) * N + (fu + N / 2)] = p;
      total += p;
    }
  }
  if (total <= 0) return { peakShare: 0, peakRadius: 0, peakDirections: [] as number[] };
  // Peaks: local maxima over 5×5 in the upper half plane (the spectrum is symmetric); a peak's power is its 3×3 sum.
  const peaks: { share: number; direction: number; radius: number }[] = [];
  const half = N / 2;
  for (let fv = 0; fv < half - 2; fv++) {
    for (let fu = -half + 2; fu < half - 2; fu++) {
      if (fv === 0 && fu <= 0) continue;
      const centre = power[(fv + half) * N + fu + half]!;
      if (centre <= 0) continue;
      let isMax = true;
      let local = 0;
      for (let dv = -2; dv <= 2 && isMax; dv++) {
        for (let du = -2; du <= 2; du++) {
          const p = power[(fv + dv + half) * N + fu + du + half]!;
          if (p > centre) {
            isMax = false;
            break;
          }
          if (Math.abs(du) <= 1 && Math.abs(dv) <= 1) local += p;
        }
      }
      if (!isMax) continue;
      const share = local / total;
      if (share < 0.04) continue;
      let direction = (Math.atan2(fv, fu) * 180) / Math.PI;
      if (direction < 0) direction += 180;
      peaks.push({ share, direction: direction % 180, radius: Math.hypot(fu, fv) });
    }
  }
  peaks.sort((a, b) => b.share - a.share);
  const directions: number[] = [];
  for (const p of peaks.slice(0, 8)) {
    if (!directions.some((d) => Math.min(Math.abs(d - p.direction), 180 - Math.abs(d - p.direction)) < 12)) directions.push(Math.round(p.direction));
  }
  return { peakShare: peaks[0]?.share ?? 0, peakRadius: peaks[0]?.radius ?? 0, peakDirections: directions };
}

/** Scale-normalised LoG extrema (dark or light blobs) at a few scales, on the patch halved to 64×64 (speed). */
function logBlobs(full: Float32Array, fullInside: Uint8Array) {
  const H = PATCH / 2;
  const L = new Float32Array(H * H);
  const inside = new Uint8Array(H * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < H; x++) {
      const i = 2 * y * PATCH + 2 * x;
      L[y * H + x] = (full[i]! + full[i + 1]! + full[i + PATCH]! + full[i + PATCH + 1]!) / 4;
      inside[y * H + x] = fullInside[i]! & fullInside[i + PATCH + 1]!;
    }
  }
  const sigmas = [1, 1.5, 2.25, 3.25];
  const responses = sigmas.map((s) => laplacianOfGaussian(L, s, H));
  const found: { x: number; y: number; r: number; v: number }[] = [];
  const threshold = 12;
  for (let s = 0; s < sigmas.length; s++) {
    const resp = responses[s]!;
    const sigma = sigmas[s]!;
    const margin = Math.ceil(2 * sigma);
    for (let y = margin; y < H - margin; y++) {
      for (let x = margin; x < H - margin; x++) {
        const i = y * H + x;
        if (!inside[i]) continue;
        const v = Math.abs(resp[i]!);
        if (v < threshold) continue;
        let isMax = true;
        for (let ds = -1; ds <= 1 && isMax; ds++) {
          const other = responses[s + ds];
          if (!other) continue;
          for (let dy = -1; dy <= 1 && isMax; dy++) {
            for (let dx = -1; dx <= 1; dx++) {
              if (!ds && !dx && !dy) continue;
              if (Math.abs(other[i + dy * H + dx]!) > v) {
                isMax = false;
                break;
              }
            }
          }
        }
        if (isMax) found.push({ x, y, r: sigma * Math.SQRT2, v });
      }
    }
  }
  // One blob per place: strongest first; a blob whose centre an accepted blob already covers is dropped.
  found.sort((a, b) => b.v - a.v);
  const taken = new Uint8Array(H * H);
  const blobs: { x: number; y: number; r: number }[] = [];
  for (const b of found) {
    if (taken[b.y * H + b.x]) continue;
    blobs.push(b);
    const r = Math.ceil(b.r);
    for (let y = Math.max(0, b.y - r); y <= Math.min(H - 1, b.y + r); y++) {
      for (let x = Math.max(0, b.x - r); x <= Math.min(H - 1, b.x + r); x++) {
        if ((x - b.x) ** 2 + (y - b.y) ** 2 <= r * r) taken[y * H + x] = 1;
      }
    }
  }
  if (!blobs.length) return { blobCount: 0, blobSizeCv: 0, blobCoverage: 0 };
  const mean = blobs.reduce((s, b) => s + b.r, 0) / blobs.length;
  const sd = Math.sqrt(blobs.reduce((s, b) => s + (b.r - mean) ** 2, 0) / blobs.length);
  const area = blobs.reduce((s, b) => s + Math.PI * b.r * b.r, 0);
  return { blobCount: blobs.length, blobSizeCv: sd / mean, blobCoverage: Math.min(1, area / (H * H)) };
}

function gaussianKernel(sigma: number): Float64Array {
  const radius = Math.ceil(3 * sigma);
  const k = new Float64Array(2 * radius + 1);
  let s = 0;
  for (let i = -radius; i <= radius; i++) s += k[i + radius] = Math.exp(-(i * i) / (2 * sigma * sigma));
  for (let i = 0; i < k.length; i++) k[i]! /= s;
  return k;
}

function laplacianOfGaussian(L: Float32Array, sigma: number, size: number): Float32Array {
  const k = gaussianKernel(sigma);
  const r = (k.length - 1) / 2;
  const tmp = new Float32Array(L.length);
  const blur = new Float32Array(L.length);
  const clampI = (v: number) => Math.max(0, Math.min(size - 1, v));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += k[d + r]! * L[y * size + clampI(x + d)]!;
      tmp[y * size + x] = s;
    }
  }
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += k[d + r]! * tmp[clampI(y + d) * size + x]!;
      blur[y * size + x] = s;
    }
  }
  const out = new Float32Array(L.length);
  for (let y = 1; y < size - 1; y++) {
    for (let x = 1; x < size - 1; x++) {
      const i = y * size + x;
      out[i] = sigma * sigma * (blur[i - 1]! + blur[i + 1]! + blur[i - size]! + blur[i + size]! - 4 * blur[i]!);
    }
  }
  return out;
}
