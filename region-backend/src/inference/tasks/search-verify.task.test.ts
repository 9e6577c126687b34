import { describe, expect, it } from 'vitest';
import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures } from '../../vision/embedding/local-features.js';
import searchQueryFeaturesTask from './search-query-features.task.js';
import searchVerifyTask from './search-verify.task.js';
import sharp from 'sharp';
import { rerankPictures, rgbOf } from '../../../test/support/real-photos.js';

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

  it('tries the mirror image in the same task only when nothing verifies, and only on the candidates marked likely', async () => {
    const { cv } = await opencv();
    const { source, other, mirroredCrop } = await rerankPictures();
    const crop = await rgbOf(sharp(Buffer.from(mirroredCrop.data), { raw: { width: mirroredCrop.width, height: mirroredCrop.height, channels: 3 } }).flop());
    const candidates = [other, source].map((image) => packLocalFeatures(extractLocalFeatures(cv, image, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures)));
    const featuresOf = async (query: typeof source) => {
      const plain = await searchQueryFeaturesTask({ rgb: query });
      return { features: plain.features, mirrored: (await searchQueryFeaturesTask({ mirrorOf: plain.described! })).features };
    };

    // A mirrored copy: the unmirrored pass verifies nothing, so the answer is the mirror pass's, as a second task gives it.
    const flipped = await featuresOf(mirroredCrop);
    const inOne = await searchVerifyTask({ query: flipped.features, candidates, thenMirrored: { mirrored: flipped.mirrored, likely: [true, true] } });
    expect(inOne).toEqual(await searchVerifyTask({ query: flipped.features, candidates, mirrored: flipped.mirrored }));
    expect(inOne[1]?.mirrored).toBe(true);
    // A candidate not marked likely is not tried mirrored.
    expect(await searchVerifyTask({ query: flipped.features, candidates, thenMirrored: { mirrored: flipped.mirrored, likely: [true, false] } })).toEqual([null, null]);

    // A plain copy verifies unmirrored: the mirror image is not tried.
    const plain = await featuresOf(crop);
    const verified = await searchVerifyTask({ query: plain.features, candidates, thenMirrored: { mirrored: plain.mirrored, likely: [true, true] } });
    expect(verified).toEqual(await searchVerifyTask({ query: plain.features, candidates }));
    expect(verified[1]).not.toBeNull();
    expect(verified[1]?.mirrored).toBeFalsy();
  });
});
