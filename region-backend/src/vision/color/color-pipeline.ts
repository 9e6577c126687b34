/**
 * Which pixels each colour service looks at, and their palette. Runs inside the `color-palette` inference
 * task (it runs person models).
 * - everything (_0000072): the whole picture;
 * - foreground (_0000073): in a portrait (the segmentation model sees ≥ 8 % person and people found by the
 *   pose model cover ≥ 15 % of the picture) the people's segmentation masks; otherwise border-background removal (see foreground-mask.ts), and with no
 *   distinct background a centre prior;
 * - person_outfit (_0000074): the clothing of up to four people (person − head − hair − skin, see
 *   dressing/person-parsing.ts); with no person in the picture, the foreground (a garment photographed alone).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { parsePeople } from '../dressing/person-parsing.js';
import { detectPeople, segmentPeople } from '../dressing/person-models.js';
import type { ColorCluster } from './color-clustering.js';
import { borderBackgroundForeground, centrePrior, maskShare } from './foreground-mask.js';
import { extractPalette, type Mask } from './palette-extraction.js';

export type ColorMode = 'everything' | 'foreground' | 'person_outfit';
export type MaskSource = 'image' | 'background-removal' | 'person' | 'centre-prior' | 'outfit';

export interface PaletteResult {
  palette: ColorCluster[];
  /** Share of the picture analysed. */
  coverage: number;
  source: MaskSource;
}

const MIN_OUTFIT_SHARE = 0.003;
/** People (pose score ≥ 0.35) whose boxes cover this share of the picture make it a portrait. */
const PORTRAIT_SHARE = 0.15;
const PORTRAIT_SCORE = 0.35;
const PORTRAIT_CANDIDATE_SHARE = 0.08;

export async function foregroundMask(image: RgbImage): Promise<{ mask: Mask; source: MaskSource }> {
  // The segmentation model (cheap) says whether a portrait is possible; it also "finds" people in cats and
  // coffee cups, so the pose model (dearer) confirms them.
  if (maskShare(await segmentPeople(image)) >= PORTRAIT_CANDIDATE_SHARE) {
    const poses = (await detectPeople(image)).filter((p) => p.score >= PORTRAIT_SCORE);
    const boxes = poses.reduce((s, p) => s + p.box[2] * p.box[3], 0);
    if (boxes >= PORTRAIT_SHARE) {
      const parsed = await parsePeople(image, poses);
      if (maskShare(parsed.person) >= MIN_OUTFIT_SHARE) return { mask: parsed.person, source: 'person' };
    }
  }
  const background = borderBackgroundForeground(image);
  return background ? { mask: background, source: 'background-removal' } : { mask: centrePrior(), source: 'centre-prior' };
}

export async function colorMask(image: RgbImage, mode: ColorMode): Promise<{ mask: Mask | null; source: MaskSource }> {
  if (mode === 'everything') return { mask: null, source: 'image' };
  if (mode === 'person_outfit') {
    const parsed = await parsePeople(image);
    if (parsed.people.length && maskShare(parsed.garment) >= MIN_OUTFIT_SHARE) return { mask: parsed.garment, source: 'outfit' };
  }
  return foregroundMask(image);
}

export async function analyseColors(image: RgbImage, mode: ColorMode): Promise<PaletteResult> {
  const { mask, source } = await colorMask(image, mode);
  const { palette, coverage } = extractPalette(image, mask);
  return { palette, coverage, source };
}
