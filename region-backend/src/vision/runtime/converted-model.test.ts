import { readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveManifest } from './model-config.js';
import { convertedModel, type ConversionSpec } from './converted-model.js';
import { ort } from './onnx-session.js';
import { temporaryModelCache } from '../../../test/support/temporary-model-cache.js';

const cacheDir = temporaryModelCache('iris-convert-cache-');

describe('converted model cache', () => {
  const spec = (): ConversionSpec => ({ file: resolveManifest('person-segmentation').file, outputs: ['activation_10'] });

  it('converts once, then reads the file whose hash matches; a damaged file is converted again', async () => {
    const first = convertedModel(spec());
    expect(first.converted).toBe(true);
    expect(first.file.startsWith(cacheDir())).toBe(true);
    const again = convertedModel(spec());
    expect(again.converted).toBe(false);
    expect(Buffer.compare(Buffer.from(again.bytes), Buffer.from(first.bytes))).toBe(0);
    // A flipped byte no longer matches the SHA-256 beside it.
    const damaged = Buffer.from(first.bytes);
    damaged[damaged.length >> 1] = damaged[damaged.length >> 1]! ^ 0xff;
    writeFileSync(first.file, damaged);
    const repaired = convertedModel(spec());
    expect(repaired.converted).toBe(true);
    expect(Buffer.compare(Buffer.from(repaired.bytes), Buffer.from(first.bytes))).toBe(0);
    const session = await ort.InferenceSession.create(repaired.bytes);
    expect(session.outputNames).toEqual(['activation_10']);
    expect(readdirSync(cacheDir()).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('other cut points are other cache entries', () => {
    const other = convertedModel({ ...spec(), outputs: ['activation_10', 'up_sampling2d_lambda/resize/size'] });
    expect(other.converted).toBe(true);
    expect(other.file).not.toBe(convertedModel(spec()).file);
  });

  it('names the unsupported op or missing node instead of writing a broken model', () => {
    expect(() => convertedModel({ ...spec(), outputs: ['no/such/node'] })).toThrow(/no\/such\/node is not a node/);
    const faceboxes = resolveManifest('face-detector').file;
    // The uncut graph ends in a TF while-loop (NMS over TensorArrays): control flow is not converted.
    expect(() => convertedModel({ file: faceboxes, outputs: ['scores'] })).toThrow(/TensorArray|Exit|Enter|cycle|not supported/);
  });
});
