/**
 * The scene identification (_0000039) label list. The specification leaves the list to a separate download;
 * Iris publishes this one: scenes its default pipeline can tell from detected objects, people, and colour,
 * brightness and texture statistics (see docs/vision-services.md for the evidence behind each).
 */
import { labelTable } from './label-table.js';

export const SCENE_LABELS = labelTable('scene', [
  ['indoor', 'indoor', '室内'],
  ['outdoor', 'outdoor', '室外'],
  ['street', 'street', '街道'],
  ['beach', 'beach', '海滩'],
  ['sea', 'sea / water', '海洋/水域'],
  ['sky', 'sky', '天空'],
  ['nature', 'nature / landscape', '自然风光'],
  ['snow', 'snow', '雪景'],
  ['night', 'night', '夜景'],
  ['food', 'food', '美食'],
  ['dining', 'dining', '用餐'],
  ['living_room', 'living room', '客厅'],
  ['bedroom', 'bedroom', '卧室'],
  ['kitchen', 'kitchen', '厨房'],
  ['bathroom', 'bathroom', '卫生间'],
  ['office', 'office / workspace', '办公室'],
  ['document', 'document / text', '文档/文字'],
  ['portrait', 'portrait', '人像'],
  ['group', 'group of people', '多人合影'],
  ['crowd', 'crowd', '人群'],
  ['sports', 'sports', '运动'],
  ['animals', 'animals', '动物'],
  ['pets', 'pets', '宠物'],
  ['traffic', 'traffic / transport', '交通'],
]);
