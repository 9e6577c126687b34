/**
 * Which pixels each colour service looks at, and their palette. Runs inside the `color-palette` inference
 * task (it runs person models).
 * - everything (_0000072): the whole picture;
 * - foreground (_0000073): border-background removal (see foreground-mask.ts); with no distinct
 *   background, the person mask of the segmentation model if there is a person, else a centre prior;
 * - person_outfit (_0000074): the clothing of up to four people (person − head − hair − skin, see
 *   dressing/person-parsing.ts); with no person in the picture, the foreground (a garment photographed alone).
 */
import type { RgbImage } from '../analysis-registry.js';
import { parsePeople } from '../dressing/person-parsing.js';
import { segmentPeople } from '../dressing/person-models.js';
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

const MIN_PERSON_SHARE = 0.02;
const MIN_OUTFIT_SHARE = 0.003;

export async function foregroundMask(image: RgbImage): Promise<{ mask: Mask; source: MaskSource }> {
  const background = borderBackgroundForeground(image);
  if (background) return { mask: background, source: 'background-removal' };
  const person = await segmentPeople(image);
  return maskShare(person) >= MIN_PERSON_SHARE ? { mask: person, source: 'person' } : { mask: centrePrior(), source: 'centre-prior' };
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
