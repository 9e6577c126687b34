/**
 * Fashion analysis of a picture (runs inside the `dressing-analyse` inference task): people → person
 * parsing → upper/lower garment regions → garment classes, colours and textures per item.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { ColorCluster } from '../color/color-clustering.js';
import { rgbToLab, type Lab } from '../color/color-space.js';
import { borderBackgroundForeground, centrePrior } from '../color/foreground-mask.js';
import { extractPalette, type Mask } from '../color/palette-extraction.js';
import { cropRgb, limitSide } from '../runtime/pixels.js';
import { classifyGarments } from './garment-classifier.js';
import {
  bandWidth, bodyLines, legGap, regionMask, shoulderSkin, sleeveLength, upperColourReach, type RegionMask,
} from './garment-regions.js';
import { KP } from './person-models.js';
import { parsePeople, type ParsedPerson, type ParsedPicture } from './person-parsing.js';
import { classifyTexture, type Texture } from './texture-classifier.js';
import { textureFeatures } from './texture-features.js';

export interface DressingItem {
  item: string;
  /** `[x, y, w, h]` normalised to the picture. */
  box: [number, number, number, number];
  textures: Texture[];
  palette: ColorCluster[];
}

const MIN_REGION_SHARE = 0.002;

/** An item found by a detector: its box is known, colours and textures are measured here. */
export interface DetectedObject {
  item: string;
  box: [number, number, number, number];
}

/**
 * Colours and textures of detected objects (bags, shoes…): inside each box, the object is what differs
 * from the box's border (border-background removal), else a centre prior.
 */
export function analyseObjects(image: RgbImage, objects: DetectedObject[]): DressingItem[] {
  return objects.map(({ item, box }) => {
    const crop = limitSide(cropRgb(image, box[0] * image.width, box[1] * image.height, box[2] * image.width, box[3] * image.height), 256);
    const mask = borderBackgroundForeground(crop) ?? centrePrior();
    const textures = crop.width >= 24 && crop.height >= 24 ? classifyTexture(textureFeatures(crop, mask)) : [];
    const round = (v: number) => Math.round(v * 1e4) / 1e4;
    return { item, box: box.map(round) as DetectedObject['box'], textures, palette: extractPalette(crop, mask).palette };
  });
}

export async function analyseDressing(image: RgbImage): Promise<{ items: DressingItem[] }> {
  const picture = await parsePeople(image);
  const { width: w, height: h } = picture.work;
  const lab = new Float32Array(w * h * 3);
  for (let i = 0; i < w * h; i++) lab.set(rgbToLab(picture.work.data[i * 3]!, picture.work.data[i * 3 + 1]!, picture.work.data[i * 3 + 2]!), i * 3);
  const labAt = (i: number): Lab => [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
  const items: DressingItem[] = [];
  for (const person of picture.people) items.push(...personItems(image, picture, person, labAt));
  return { items };
}

function personItems(image: RgbImage, picture: ParsedPicture, person: ParsedPerson, labAt: (i: number) => Lab): DressingItem[] {
  const { width: w, height: h } = picture.work;
  const minPixels = MIN_REGION_SHARE * w * h;
  const lines = bodyLines(picture, person);
  const keep = (r: RegionMask | null) => (r && r.pixels >= minPixels ? r : null);
  const upper = keep(regionMask(picture, person, lines.shoulderY - 0.4 * lines.torso, lines.waistY));
  const lower = keep(regionMask(picture, person, lines.waistY, h));
  if (!upper && !lower) return [];
  const upperPalette = upper ? extractPalette(picture.work, upper).palette : [];
  const lowerPalette = lower ? extractPalette(picture.work, lower).palette : [];
  const depth = (y: number) => (y - lines.hipY) / lines.torso;
  const reach = upper && lower && upperPalette[0] ? upperColourReach(picture, lower, upperPalette[0].lab, labAt) : lines.waistY;
  const gap = legGap(picture, person, lines);
  const measures = {
    sleeve: sleeveLength(picture, person),
    shoulderSkin: shoulderSkin(picture, person),
    hasUpper: upper !== null,
    hasLower: lower !== null,
    upperReach: depth(reach),
    lowerEnd: lower ? depth(lower.bounds[3]) : 0,
    kneeDepth: depth(lines.kneeY),
    ankleDepth: depth(lines.ankleY),
    lowerCut: lower ? lower.bounds[3] >= h - 2 && !visible(person, [KP.leftAnkle, KP.rightAnkle]) : false,
    kneesVisible: visible(person, [KP.leftKnee, KP.rightKnee]),
    legGap: gap,
    hemFlare: lower ? bandWidth(lower, lower.bounds[3] - 0.1 * (lower.bounds[3] - lower.bounds[1]), lower.bounds[3]) / lines.hipWidth : 0,
    kneeWidth: lower ? bandWidth(lower, lines.kneeY - 0.1 * lines.torso, lines.kneeY + 0.1 * lines.torso) / lines.hipWidth : 0,
    upperColour: upperPalette[0]?.lab ?? null,
    lowerColour: lowerPalette[0]?.lab ?? null,
    openFront: upper ? openFront(upper, lines.centreX, labAt) : false,
  };
  const classes = classifyGarments(measures);
  const out: DressingItem[] = [];
  const add = (item: string, region: RegionMask) => {
    out.push({ item, box: normalisedBox(region), textures: regionTextures(image, region), palette: extractPalette(picture.work, region).palette });
  };
  if (classes.dress) {
    const whole = keep(regionMask(picture, person, lines.shoulderY - 0.4 * lines.torso, h));
    if (whole) add(classes.dress, whole);
    return out;
  }
  if (classes.upper && upper) {
    const region = classes.longUpper ? keep(regionMask(picture, person, lines.shoulderY - 0.4 * lines.torso, reach)) ?? upper : upper;
    add(classes.upper, region);
  }
  if (classes.lower && lower) {
    const region = classes.longUpper ? keep(regionMask(picture, person, reach, h)) ?? lower : lower;
    add(classes.lower, region);
  }
  return out;
}

function visible(person: ParsedPerson, keypoints: number[]): boolean {
  return keypoints.some((k) => (person.pose.keypoints[k]?.score ?? 0) >= 0.3);
}

function normalisedBox(r: RegionMask): [number, number, number, number] {
  const [x0, y0, x1, y1] = r.bounds;
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return [round(x0 / r.width), round(y0 / r.height), round((x1 - x0) / r.width), round((y1 - y0) / r.height)];
}

/** Textures are measured on the original pixels of the region's box (finer than the working resolution). */
function regionTextures(image: RgbImage, r: RegionMask): Texture[] {
  const [x0, y0, x1, y1] = r.bounds;
  const sx = image.width / r.width;
  const sy = image.height / r.height;
  const crop = limitSide(cropRgb(image, x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy), 256);
  const mask: Mask = { data: new Uint8Array((x1 - x0) * (y1 - y0)), width: x1 - x0, height: y1 - y0 };
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) mask.data[(y - y0) * mask.width + x - x0] = r.data[y * r.width + x]!;
  if (crop.width < 24 || crop.height < 24) return [];
  return classifyTexture(textureFeatures(crop, mask));
}

/** An open jacket: the central band of the torso has a different main colour from the two side bands. */
function openFront(upper: RegionMask, centreX: number, labAt: (i: number) => Lab): boolean {
  const [x0, y0, x1, y1] = upper.bounds;
  const width = x1 - x0;
  const band = (from: number, to: number): Lab | null => {
    const sum = [0, 0, 0];
    let n = 0;
    for (let y = y0 + Math.floor(0.3 * (y1 - y0)); y < y1; y++) {
      for (let x = Math.max(x0, Math.round(from)); x < Math.min(x1, Math.round(to)); x++) {
        const i = y * upper.width + x;
        if (!upper.data[i]) continue;
        const c = labAt(i);
        sum[0]! += c[0];
        sum[1]! += c[1];
        sum[2]! += c[2];
        n++;
      }
    }
    return n >= 8 ? [sum[0]! / n, sum[1]! / n, sum[2]! / n] : null;
  };
  const centre = band(centreX - 0.06 * width, centreX + 0.06 * width);
  const left = band(centreX - 0.3 * width, centreX - 0.15 * width);
  const right = band(centreX + 0.15 * width, centreX + 0.3 * width);
  if (!centre || !left || !right) return false;
  const d = (p: Lab, q: Lab) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  return d(left, right) < 12 && d(centre, left) > 20 && d(centre, right) > 20;
}
