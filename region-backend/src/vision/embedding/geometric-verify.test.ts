import type { RgbImage } from '../../images/rgb-image.js';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { opencv } from '../runtime/opencv-runtime.js';
import { VERIFY, verifyCandidate, verifyCandidates, verifyMirrored } from './geometric-verify.js';
import { extractLocalFeatures, LOCAL_FEATURES, queryLocalFeatures } from './local-features.js';
import { rerankPictures, rgbOf } from '../../../test/support/real-photos.js';


describe('geometric verification of search candidates', () => {
  it('verifies a cropped, shrunk copy and locates the match in both pictures; refuses another picture', async () => {
    const { cv } = await opencv();
    const { source, other } = await rerankPictures();
    // The query: the right 60 % of the source, at half size, re-encoded.
    const cropped = await sharp(Buffer.from(source.data), { raw: { width: 600, height: 450, channels: 3 } })
      .extract({ left: 240, top: 0, width: 360, height: 450 })
      .resize({ width: 180 })
      .jpeg({ quality: 70 })
      .toBuffer();
    const query = extractLocalFeatures(cv, await rgbOf(sharp(cropped)), LOCAL_FEATURES.querySide, LOCAL_FEATURES.queryFeatures);
    const index = (image: RgbImage) => extractLocalFeatures(cv, image, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures);

    const match = verifyCandidate(query, index(source));
    expect(match).not.toBeNull();
    expect(match!.inliers).toBeGreaterThanOrEqual(12);
    // The matched region of the source lies in its right part.
    const [x, , w] = match!.candidateBox;
    expect(x).toBeGreaterThan(0.3);
    expect(x + w).toBeLessThanOrEqual(1);
    const [qx, qy, qw, qh] = match!.queryBox;
    expect(qw * qh).toBeGreaterThan(0.3);
    expect(qx).toBeGreaterThanOrEqual(0);
    expect(qy).toBeGreaterThanOrEqual(0);

    expect(verifyCandidate(query, index(other))).toBeNull();
    const both = verifyCandidates(query, [index(other), null, index(source)]);
    expect(both[0]).toBeNull();
    expect(both[1]).toBeNull();
    expect(both[2]?.inliers).toBe(match!.inliers);
  });

  it('stops verifying once a candidate is verified decisively (no later candidate can rank above it)', async () => {
    const { cv } = await opencv();
    const { source } = await rerankPictures();
    const query = extractLocalFeatures(cv, await rgbOf(sharp(await sharp(Buffer.from(source.data), { raw: { width: 600, height: 450, channels: 3 } }).jpeg({ quality: 80 }).toBuffer())), LOCAL_FEATURES.querySide, LOCAL_FEATURES.queryFeatures);
    const indexed = extractLocalFeatures(cv, source, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures);
    const all = verifyCandidates(query, [indexed, indexed], { ...VERIFY, decisiveInliers: 0 });
    expect(all[0]!.inliers).toBeGreaterThanOrEqual(VERIFY.decisiveInliers);
    expect(all[1]!.inliers).toBe(all[0]!.inliers);
    const early = verifyCandidates(query, [indexed, indexed]);
    expect(early[0]).toEqual(all[0]);
    expect(early[1]).toBeNull();
  });

  it('verifies a mirrored crop with the features of the query\'s mirror image, and maps its box back', async () => {
    const { cv } = await opencv();
    // framed: the middle half of the source (x 120–420 of 600), mirrored.
    const { source, other, mirroredCrop: framed } = await rerankPictures();
    const index = (image: RgbImage) => extractLocalFeatures(cv, image, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures);
    const candidates = [index(other), index(source)];
    const direct = queryLocalFeatures(cv, framed);
    expect(verifyCandidates(direct, candidates)).toEqual([null, null]);
    const [none, found] = verifyMirrored(queryLocalFeatures(cv, framed, true), candidates);
    expect(none).toBeNull();
    expect(found?.mirrored).toBe(true);
    // Matched: the middle of the source, the whole query.
    const [cx, , cw] = found!.candidateBox;
    expect(cx).toBeCloseTo(0.2, 1);
    expect(cw).toBeCloseTo(0.5, 1);
    expect(found!.queryBox[0]).toBeCloseTo(0, 1);
    expect(found!.queryBox[2]).toBeCloseTo(1, 1);
  });
});
