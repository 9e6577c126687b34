/**
 * Pooling of a convolutional feature map (NHWC, one image: height × width × channels, row-major) into one
 * global descriptor. Pure functions, no runtime: used by the embedder inside worker threads and by the
 * evaluation that chose the pooling.
 */
export interface FeatureMap {
  data: Float32Array;
  height: number;
  width: number;
  channels: number;
}

export type Pooling = 'gap' | 'gem' | 'mac' | 'rmac';
export const POOLINGS: readonly Pooling[] = ['gap', 'gem', 'mac', 'rmac'];

/** L2-normalises in place (a zero vector stays zero) and returns the same array. */
export function l2normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/**
 * Several descriptors of one image joined into one: each L2-normalised and scaled by its weight (default 1),
 * concatenated, then L2-normalised. The inputs are left as they are.
 */
export function joinDescriptors(parts: readonly Float32Array[], weights: readonly number[] = []): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  parts.forEach((part, i) => {
    const slot = out.subarray(at, at + part.length);
    slot.set(part);
    l2normalise(slot);
    const weight = weights[i] ?? 1;
    if (weight !== 1) for (let k = 0; k < slot.length; k++) slot[k] = slot[k]! * weight;
    at += part.length;
  });
  return l2normalise(out);
}

export interface Region {
  top: number;
  left: number;
  height: number;
  width: number;
}

/**
 * The cells of a map under a normalised box [x, y, w, h] of the picture it was computed from (at least one
 * cell), copied out as a map of their own: a window of the picture pooled from one pass over the whole picture.
 */
export function subMap(map: FeatureMap, box: readonly number[]): FeatureMap {
  const [x = 0, y = 0, w = 1, h = 1] = box;
  const span = (start: number, size: number, cells: number): [number, number] => {
    const from = Math.min(cells - 1, Math.max(0, Math.floor(start * cells)));
    return [from, Math.min(cells, Math.max(from + 1, Math.ceil((start + size) * cells)))];
  };
  const [left, right] = span(x, w, map.width);
  const [top, bottom] = span(y, h, map.height);
  const { channels } = map;
  const width = right - left;
  const data = new Float32Array((bottom - top) * width * channels);
  for (let row = top; row < bottom; row++) {
    const from = (row * map.width + left) * channels;
    data.set(map.data.subarray(from, from + width * channels), (row - top) * width * channels);
  }
  return { data, height: bottom - top, width, channels };
}

function regionMax(map: FeatureMap, r: Region): Float32Array {
  const { data, width, channels } = map;
  const out = new Float32Array(channels).fill(-Infinity);
  for (let y = r.top; y < r.top + r.height; y++) {
    for (let x = r.left; x < r.left + r.width; x++) {
      const base = (y * width + x) * channels;
      for (let c = 0; c < channels; c++) {
        const v = data[base + c]!;
        if (v > out[c]!) out[c] = v;
      }
    }
  }
  return out;
}

/** Global average pooling. */
export function gap(map: FeatureMap): Float32Array {
  const { data, channels } = map;
  const out = new Float32Array(channels);
  const positions = map.height * map.width;
  for (let p = 0; p < positions; p++) {
    const base = p * channels;
    for (let c = 0; c < channels; c++) out[c] = out[c]! + data[base + c]!;
  }
  for (let c = 0; c < channels; c++) out[c] = out[c]! / positions;
  return out;
}

/** Generalised-mean pooling, (mean x^p)^(1/p): between average (p = 1) and max (p → ∞). */
export function gem(map: FeatureMap, p = 3): Float32Array {
  const { data, channels } = map;
  // Sums in float64; the cube multiplied out (a generic power per activation cost more than the backbone).
  const sums = new Float64Array(channels);
  const positions = map.height * map.width;
  const cube = p === 3;
  for (let i = 0; i < positions; i++) {
    const base = i * channels;
    for (let c = 0; c < channels; c++) {
      const x = Math.max(1e-6, data[base + c]!);
      sums[c] = sums[c]! + (cube ? x * x * x : x ** p);
    }
  }
  const out = new Float32Array(channels);
  for (let c = 0; c < channels; c++) out[c] = (sums[c]! / positions) ** (1 / p);
  return out;
}

/** Maximum activation of each channel (MAC). */
export function mac(map: FeatureMap): Float32Array {
  return regionMax(map, { top: 0, left: 0, height: map.height, width: map.width });
}

/**
 * Regions of R-MAC (Tolias et al., 2016): square regions at `levels` scales, side 2·min(H, W)/(l + 1) at
 * level l, spread uniformly with about 40 % overlap along the longer side.
 */
export function rmacRegions(height: number, width: number, levels = 3): Region[] {
  const regions: Region[] = [{ top: 0, left: 0, height, width }];
  const minSide = Math.min(height, width);
  for (let l = 2; l <= levels; l++) {
    const side = Math.max(1, Math.floor((2 * minSide) / (l + 1)));
    const countY = height === minSide ? l : Math.max(l, Math.round((l * height) / minSide));
    const countX = width === minSide ? l : Math.max(l, Math.round((l * width) / minSide));
    const stepY = countY > 1 ? (height - side) / (countY - 1) : 0;
    const stepX = countX > 1 ? (width - side) / (countX - 1) : 0;
    for (let i = 0; i < countY; i++) {
      for (let j = 0; j < countX; j++) {
        regions.push({ top: Math.round(i * stepY), left: Math.round(j * stepX), height: side, width: side });
      }
    }
  }
  return regions;
}

/** R-MAC: the sum of L2-normalised region maxima, so a crop that keeps some regions keeps part of the vector. */
export function rmac(map: FeatureMap, levels = 3): Float32Array {
  const out = new Float32Array(map.channels);
  for (const region of rmacRegions(map.height, map.width, levels)) {
    const v = l2normalise(regionMax(map, region));
    for (let c = 0; c < out.length; c++) out[c] = out[c]! + v[c]!;
  }
  return out;
}

export function pool(map: FeatureMap, pooling: Pooling): Float32Array {
  switch (pooling) {
    case 'gap':
      return gap(map);
    case 'gem':
      return gem(map);
    case 'mac':
      return mac(map);
    case 'rmac':
      return rmac(map);
  }
}
