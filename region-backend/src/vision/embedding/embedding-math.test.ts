import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMBEDDING_DIM, EMBEDDING_PIPELINE } from './embedding-info.js';
import { gap, gem, joinDescriptors, l2normalise, mac, rmac, rmacRegions, type FeatureMap } from './feature-pooling.js';
import { applyWhitening, decodeWhitening, encodeWhitening, fitWhitening, fromHalf, pcaBasis, toHalf } from './pca-whitening.js';
import { leadingEigen, symmetricEigen } from './symmetric-eigen.js';

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe('feature pooling', () => {
  const map: FeatureMap = { height: 2, width: 2, channels: 2, data: Float32Array.from([1, 0, 3, 0, 0, 4, 2, 0]) };

  it('pools average, generalised mean and maximum per channel', () => {
    expect([...gap(map)]).toEqual([1.5, 1]);
    expect([...mac(map)]).toEqual([3, 4]);
    const g = gem(map);
    for (let c = 0; c < 2; c++) {
      expect(g[c]).toBeGreaterThan(gap(map)[c]!);
      expect(g[c]).toBeLessThan(mac(map)[c]!);
    }
  });

  it('covers the map with R-MAC regions at three scales', () => {
    expect(rmacRegions(7, 7)).toHaveLength(1 + 4 + 9);
    const wide = rmacRegions(7, 10);
    for (const r of wide) {
      expect(r.top + r.height).toBeLessThanOrEqual(7);
      expect(r.left + r.width).toBeLessThanOrEqual(10);
    }
    expect(Math.max(...wide.map((r) => r.left + r.width))).toBe(10);
    const v = rmac(map);
    expect(v.every((x) => x > 0)).toBe(true);
  });
});

describe('eigen-decomposition and whitening', () => {
  it('decomposes a symmetric matrix exactly, and the leading part by subspace iteration', () => {
    const n = 40;
    const rand = random(7);
    const rows = Array.from({ length: 120 }, () => Array.from({ length: n }, (_, i) => (rand() - 0.5) * (n - i)));
    const a = new Float64Array(n * n);
    for (const x of rows) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = a[i * n + j]! + x[i]! * x[j]!;
    const full = symmetricEigen(a, n);
    for (let r = 0; r < n; r += 13) {
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += a[i * n + j]! * full.vectors[r * n + j]!;
        expect(s).toBeCloseTo(full.values[r]! * full.vectors[r * n + i]!, 6);
      }
    }
    expect(full.values[0]).toBeGreaterThanOrEqual(full.values[1]!);
    const lead = leadingEigen(a, n, 5, 30);
    for (let r = 0; r < 5; r++) expect(lead.values[r]! / full.values[r]!).toBeCloseTo(1, 6);
  });

  it('learns a whitening that decorrelates its samples, with fewer samples than dimensions too', () => {
    const rand = random(3);
    const dim = 24;
    const samples = Array.from({ length: 16 }, () => Float32Array.from({ length: dim }, (_, i) => rand() * (i + 1) + (i % 3 === 0 ? rand() : 0)));
    const basis = pcaBasis(samples);
    expect(basis.values.length).toBeLessThanOrEqual(16);
    const w = fitWhitening(samples, { dim: 4, power: 0.5, shrink: 0 });
    expect(w.outputDim).toBe(4);
    const out = samples.map((s) => applyWhitening(w, s));
    for (const v of out) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    // Before the final L2 step, whitened components have equal variance: check on the unnormalised projection.
    const raw = samples.map((s) => Array.from({ length: 4 }, (_, r) => s.reduce((acc, x, i) => acc + w.projection[r * dim + i]! * (x - w.mean[i]!), 0)));
    const variances = [0, 1, 2, 3].map((r) => raw.reduce((acc, v) => acc + v[r]! ** 2, 0) / raw.length);
    for (const v of variances) expect(v).toBeCloseTo(1, 3);
  });

  it('round-trips the whitening file (float16 matrix)', () => {
    const rand = random(11);
    const samples = Array.from({ length: 50 }, () => Float32Array.from({ length: 12 }, () => rand()));
    const w = fitWhitening(samples, { dim: 6, power: 0.5, shrink: 0.1 });
    const { whitening, header } = decodeWhitening(encodeWhitening(w, { describes: 'test', power: 0.5, shrink: 0.1, samples: 50 }));
    expect(header).toMatchObject({ describes: 'test', inputDim: 12, outputDim: 6 });
    const x = samples[0]!;
    const a = applyWhitening(w, x);
    const b = applyWhitening(whitening, x);
    for (let i = 0; i < 6; i++) expect(b[i]).toBeCloseTo(a[i]!, 2);
    for (const v of [0, 1, -2.5, 1e-3, 65504, 3.14159]) expect(Math.abs(fromHalf(toHalf(v)) - v)).toBeLessThanOrEqual(Math.abs(v) * 1e-3);
  });

  it('ships a whitening file that matches the production pipeline', () => {
    const bytes = readFileSync(new URL(EMBEDDING_PIPELINE.whitening.file, import.meta.url));
    expect(bytes.length).toBeLessThan(2 * 1024 * 1024);
    const { whitening, header } = decodeWhitening(bytes);
    // The joined blocks: last conv map (1792 channels), blocks 12 (136) and 14 (224).
    expect(whitening.inputDim).toBe(1792 + 136 + 224);
    expect(whitening.outputDim).toBe(EMBEDDING_DIM);
    expect(header.power).toBe(EMBEDDING_PIPELINE.whitening.power);
    const v = applyWhitening(whitening, l2normalise(Float32Array.from({ length: whitening.inputDim }, (_, i) => (i % 7) / 7)));
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });
});

describe('joining descriptors', () => {
  it('normalises each part, scales it by its weight, joins and normalises, leaving the inputs as they were', () => {
    const a = Float32Array.from([3, 4]);
    const b = Float32Array.from([0, 0, 2]);
    const joined = joinDescriptors([a, b], [1, 0.5]);
    // Parts (0.6, 0.8) and (0, 0, 0.5), then the whole divided by √1.25.
    const n = Math.sqrt(1.25);
    expect(Array.from(joined).map((v) => +v.toFixed(6))).toEqual([0.6 / n, 0.8 / n, 0, 0, 0.5 / n].map((v) => +v.toFixed(6)));
    expect(Array.from(a)).toEqual([3, 4]);
    expect(Array.from(b)).toEqual([0, 0, 2]);
    expect(Array.from(joinDescriptors([a, b]))).toEqual(Array.from(joinDescriptors([a, b], [1, 1])));
  });
});
