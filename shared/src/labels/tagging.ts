/**
 * The general tagging (_0000159) label list. The specification leaves the list to a separate download; Iris
 * publishes this one: every COCO object class, every scene label, the basic colour terms and a few picture
 * properties. A tag keeps the puid of its source (`coco.dog`, `scene.beach`, `color.red`, `tag.text`), so one
 * concept has one id across services.
 */
import { BASIC_COLOR_IDS, BASIC_COLORS } from './colors.js';
import { COCO_LABELS } from './coco.js';
import { labelTable, type ServiceLabel } from './label-table.js';
import { SCENE_LABELS } from './scene.js';

// "orange" is also a COCO fruit: the colour tag says which one it is.
export const COLOR_TAG_LABELS = labelTable(
  'color',
  BASIC_COLOR_IDS.map((id) => [id, id === 'orange' ? 'orange (color)' : BASIC_COLORS[id].en, BASIC_COLORS[id].zh] as const),
);

export const PICTURE_TAG_LABELS = labelTable('tag', [
  ['face', 'face', '人脸'],
  ['text', 'text', '文字'],
  ['illustration', 'illustration / drawing', '插画/绘画'],
  ['black_and_white', 'black and white', '黑白'],
  ['colorful', 'colorful', '色彩鲜艳'],
]);

/** Tag id → label; ids are `coco:<id>`, `scene:<id>`, `color:<id>` or `tag:<id>`. */
export const TAGGING_LABELS: ReadonlyMap<string, ServiceLabel> = new Map([
  ...COCO_LABELS.map((l) => [`coco:${l.id}`, l] as const),
  ...SCENE_LABELS.map((l) => [`scene:${l.id}`, l] as const),
  ...COLOR_TAG_LABELS.map((l) => [`color:${l.id}`, l] as const),
  ...PICTURE_TAG_LABELS.map((l) => [`tag:${l.id}`, l] as const),
]);
