import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import type { RgbImage } from '../../images/rgb-image.js';
import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { packageFile } from '../../vision/runtime/tfjs.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures } from '../../vision/embedding/local-features.js';
import searchQueryFeaturesTask from './search-query-features.task.js';
import searchVerifyTask from './search-verify.task.js';

const SAMPLES = packageFile('@vladmandic/human', 'assets/samples.jpg');

async function rgb(image: Sharp): Promise<RgbImage> {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

describe('search re-ranking tasks: the mirror pass', () => {
  it('verifies a mirrored copy the same way from features described beside the embedding as from the picture', async () => {
    const { cv } = await opencv();
    const source = await rgb(sharp(SAMPLES).extract({ left: 0, top: 200, width: 600, height: 450 }));
    const other = await rgb(sharp(SAMPLES).extract({ left: 325, top: 0, width: 213, height: 157 }).resize({ width: 600 }));
    const raw = { raw: { width: 600, height: 450, channels: 3 as const } };
    const query = await rgb(sharp(await sharp(Buffer.from(source.data), raw).extract({ left: 120, top: 0, width: 300, height: 450 }).flop().jpeg({ quality: 85 }).toBuffer()));
    const candidates = [other, source].map((image) => packLocalFeatures(extractLocalFeatures(cv, image, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures)));

    const plain = await searchQueryFeaturesTask({ rgb: query });
    expect(plain.mirrored).toBeNull();
    const both = await searchQueryFeaturesTask({ rgb: query, mirror: true });
    expect(both.features).toEqual(plain.features);
    expect(both.mirrored).not.toBeNull();

    expect(await searchVerifyTask({ query: both.features, candidates })).toEqual([null, null]);
    const fromPicture = await searchVerifyTask({ query: both.features, candidates, mirrorOf: query });
    const fromFeatures = await searchVerifyTask({ query: both.features, candidates, mirrored: both.mirrored });
    expect(fromPicture[0]).toBeNull();
    expect(fromPicture[1]?.mirrored).toBe(true);
    // The same match; boxes agree within the packed keypoints' 1/8-pixel positions.
    expect(fromFeatures[0]).toBeNull();
    expect(fromFeatures[1]?.mirrored).toBe(true);
    expect(Math.abs(fromFeatures[1]!.inliers - fromPicture[1]!.inliers)).toBeLessThanOrEqual(2);
    fromFeatures[1]!.queryBox.forEach((v, i) => expect(v).toBeCloseTo(fromPicture[1]!.queryBox[i]!, 2));
    fromFeatures[1]!.candidateBox.forEach((v, i) => expect(v).toBeCloseTo(fromPicture[1]!.candidateBox[i]!, 2));
  });
});
