import { describe, expect, it } from 'vitest';
import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures } from '../../vision/embedding/local-features.js';
import searchQueryFeaturesTask from './search-query-features.task.js';
import searchVerifyTask from './search-verify.task.js';
import { rerankPictures } from '../../../test/support/real-photos.js';

describe('search re-ranking tasks: the mirror pass', () => {
  it('verifies a mirrored copy the same way from features described beside the embedding as from the picture', async () => {
    const { cv } = await opencv();
    const { source, other, mirroredCrop: query } = await rerankPictures();
    const candidates = [other, source].map((image) => packLocalFeatures(extractLocalFeatures(cv, image, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures)));

    const plain = await searchQueryFeaturesTask({ rgb: query });
    const mirrored = (await searchQueryFeaturesTask({ mirrorOf: plain.described! })).features;
    expect(mirrored).not.toEqual(plain.features);
    const both = { features: plain.features, mirrored };

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
