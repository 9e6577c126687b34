import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, hasOverride, resetModelConfig, resolveManifest, resolveModelFile, validateModelOverrides } from './model-config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-model-config-'));
const manifest = (name: string, file: string) => ({
  name,
  runtime: 'onnx',
  file,
  inputSize: [8, 8],
  output: { type: 'probabilities' },
  labels: [{ id: 'a', en: 'A', zh: '甲' }],
});

afterEach(() => {
  delete process.env.IRIS_MODEL_OVERRIDES;
  resetModelConfig();
});

describe('model stage configuration', () => {
  it('serves the default manifest of a stage, with pkg: files resolved inside installed packages', () => {
    const m = resolveManifest('object-detector');
    expect(m.runtime).toBe('tfjs-graph');
    expect(m.file).toMatch(/@vladmandic[/\\]human-models[/\\]models[/\\]centernet\.json$/);
    expect(path.isAbsolute(m.file)).toBe(true);
    expect(m.labels).toHaveLength(80);
    expect(m.resize).toBe('stretch');
    expect(DEFAULT_MODELS_DIR).toMatch(/region-backend[/\\]models$/);
  });

  it('falls back to another stage when a stage has neither an override nor a default manifest', () => {
    expect(resolveManifest('furniture-detector', 'object-detector').name).toBe(resolveManifest('object-detector').name);
    expect(() => resolveManifest('no-such-stage')).toThrow(/no model manifest for stage no-such-stage/);
  });

  it('lets IRIS_MODEL_OVERRIDES replace a stage, with files relative to the manifest', () => {
    writeFileSync(path.join(dir, 'porn.json'), JSON.stringify(manifest('operator-porn', 'weights/porn.onnx')));
    writeFileSync(path.join(dir, 'overrides.json'), JSON.stringify({ 'porn-classifier': 'porn.json', 'furniture-detector': path.join(dir, 'porn.json') }));
    process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides.json');
    resetModelConfig();
    const m = resolveManifest('porn-classifier');
    expect(m.name).toBe('operator-porn');
    expect(m.file).toBe(path.join(dir, 'weights', 'porn.onnx'));
    expect(hasOverride('porn-classifier')).toBe(true);
    expect(hasOverride('face-detector')).toBe(false);
    // An override wins over the fallback too.
    expect(resolveManifest('furniture-detector', 'object-detector').name).toBe('operator-porn');
    expect(resolveManifest('face-detector').name).toBe('faceboxes-widerface');
    // The model file itself is missing: a boot-time check names it.
    expect(() => validateModelOverrides()).toThrow(/model file .*porn\.onnx does not exist/);
  });

  it('validates every override at boot when the files exist', () => {
    writeFileSync(path.join(dir, 'model.onnx'), 'x');
    writeFileSync(path.join(dir, 'ok.json'), JSON.stringify(manifest('ok', 'model.onnx')));
    writeFileSync(path.join(dir, 'overrides-ok.json'), JSON.stringify({ 'porn-classifier': 'ok.json' }));
    process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides-ok.json');
    resetModelConfig();
    expect(validateModelOverrides()).toEqual(['porn-classifier']);
    delete process.env.IRIS_MODEL_OVERRIDES;
    resetModelConfig();
    expect(validateModelOverrides()).toEqual([]);
  });

  it('rejects invalid manifests and override files with a message naming the problem', () => {
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ name: 'x', runtime: 'caffe', file: 'a', inputSize: [1, 1], output: { type: 't' } }));
    writeFileSync(path.join(dir, 'overrides-bad.json'), JSON.stringify({ 'porn-classifier': 'bad.json' }));
    process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides-bad.json');
    resetModelConfig();
    expect(() => resolveManifest('porn-classifier')).toThrow(/is invalid: runtime/);
    writeFileSync(path.join(dir, 'overrides-array.json'), '["x"]');
    process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides-array.json');
    resetModelConfig();
    expect(() => resolveManifest('porn-classifier')).toThrow(/must hold an object/);
  });

  it('resolves scoped and unscoped pkg: paths and reports missing files', () => {
    expect(resolveModelFile('pkg:nsfwjs/dist/models/mobilenet_v2_mid/model.min.js', '/')).toMatch(/nsfwjs[/\\]dist[/\\]models/);
    expect(() => resolveModelFile('pkg:nsfwjs/nope.bin', '/')).toThrow(/nope\.bin not found in installed package nsfwjs/);
    expect(() => resolveModelFile('pkg:nsfwjs', '/')).toThrow(/expected pkg:<package>\/<path>/);
    expect(resolveModelFile('/abs/model.onnx', '/elsewhere')).toBe('/abs/model.onnx');
  });
});
