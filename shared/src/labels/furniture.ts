/** Labels of furniture detection v3.0 (_0000171), as the specification lists them. */
import { labelTable } from './label-table.js';

export const FURNITURE_LABELS = labelTable('furniture', [
  ['casamania_pollon_pouf', 'casamania_pollon_pouf', '坐墩'], ['corner_table', 'corner_table', '角几'],
  ['faucet', 'faucet', '水龙头'], ['tv_cabinet', 'tv_cabinet', '电视柜'], ['toilet', 'toilet', '马桶'],
  ['shower_caddy', 'shower_caddy', '浴室置物架'], ['bathroom_cabinet', 'bathroom_cabinet', '浴室柜'],
  ['floor_lamp', 'floor_lamp', '落地灯'], ['teapoy', 'teapoy', '茶几'], ['sofa', 'sofa', '沙发'],
  ['wall_lamp', 'wall_lamp', '壁灯'], ['chair', 'chair', '椅子'], ['bedside_cupboard', 'bedside_cupboard', '床头柜'],
  ['desk_lamp', 'desk_lamp', '台灯'], ['bed', 'bed', '床'], ['pendant_lamp', 'pendant_lamp', '吊灯'],
  ['table', 'table', '桌子'], ['ceiling-lights', 'ceiling-lights', '吸顶灯'], ['bed_bench', 'bed_bench', '床尾凳'],
  ['recliner', 'recliner', '躺椅'], ['trough', 'trough', '水槽柜'], ['drawer_chest', 'drawer_chest', '斗柜'],
  ['sink', 'sink', '水槽'], ['bathtub', 'bathtub', '浴缸'], ['bar_stool', 'bar_stool', '吧凳'],
]);
