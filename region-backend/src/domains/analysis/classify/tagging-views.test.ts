/** General tagging's two views of the picture and its calibrated object scores, on a real model and photo. */
import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import { sampleTile } from '../../../../test/support/sample-images.js';
import type { Box } from '../../../vision/detect/detection.js';
import { cropNormalised } from '../../../vision/runtime/pixels.js';
import { sharedImage } from '../detect/vision-calls.js';
import { gatherEvidence } from './scene-evidence.js';
import { calibratedScore } from './tag-calibration.js';
import { objectEvidence, tagsFromEvidence, taggingHandler } from './tagging.handler.js';

const pool = new InferencePool(1);
afterAll(() => pool.close());

function iou(a: Box, b: Box): number {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  const inter = Math.max(0, w) * Math.max(0, h);
  return inter / (a[2] * a[3] + b[2] * b[3] - inter);
}

describe('general tagging views', () => {
  it('finds the man in the framed picture where he is in the picture, and scores the tag from both views', async () => {
    const tile = sharedImage(await sampleTile(2));
    const evidence = await gatherEvidence({ pool }, tile, { framed: true });
    const best = (list: typeof evidence.objects) => list.filter((o) => o.label === 'person').sort((a, b) => b.score - a.score)[0];
    const plain = best(evidence.objects);
    const framed = best(evidence.framedObjects ?? []);
    expect(plain).toBeDefined();
    expect(framed).toBeDefined();
    // Boxes of the framed view are mapped back onto the picture.
    expect(iou(plain!.box, framed!.box)).toBeGreaterThan(0.5);
    for (const v of framed!.box) expect(v).toBeGreaterThanOrEqual(0);
    expect(framed!.box[0] + framed!.box[2]).toBeLessThanOrEqual(1 + 1e-9);
    const person = objectEvidence(evidence).find((o) => o.key === 'coco:person')!;
    expect(person.scores).toEqual({ object: plain!.score, 'object-framed': framed!.score });
    const tag = tagsFromEvidence(evidence).find((t) => t.key === 'coco:person')!;
    expect(tag.score).toBeCloseTo(calibratedScore(person.scores), 10);
  });

  it('names the man first when the picture is cropped to him edge to edge', async () => {
    const tile = await sampleTile(2);
    const evidence = await gatherEvidence({ pool }, sharedImage(tile));
    const man = evidence.objects.filter((o) => o.label === 'person').sort((a, b) => b.score - a.score)[0]!;
    const { image } = cropNormalised(tile, man.box);
    const out = await taggingHandler.run({ pool }, { rgb: image, encoded: new Uint8Array(), params: { count: '5' }, lang: 'en' });
    expect(out.results[0]!.puid).toBe('coco.person');
  });
});
