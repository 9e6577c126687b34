/** The 80 COCO object classes in detector output order (ids are the COCO names with `_` for spaces). */
import { labelTable } from './label-table.js';

export const COCO_LABELS = labelTable('coco', [
  ['person', 'person', '人'], ['bicycle', 'bicycle', '自行车'], ['car', 'car', '汽车'], ['motorcycle', 'motorcycle', '摩托车'],
  ['airplane', 'airplane', '飞机'], ['bus', 'bus', '公共汽车'], ['train', 'train', '火车'], ['truck', 'truck', '卡车'],
  ['boat', 'boat', '船'], ['traffic_light', 'traffic light', '交通信号灯'], ['fire_hydrant', 'fire hydrant', '消防栓'],
  ['stop_sign', 'stop sign', '停车标志'], ['parking_meter', 'parking meter', '停车计时器'], ['bench', 'bench', '长椅'],
  ['bird', 'bird', '鸟'], ['cat', 'cat', '猫'], ['dog', 'dog', '狗'], ['horse', 'horse', '马'], ['sheep', 'sheep', '羊'],
  ['cow', 'cow', '牛'], ['elephant', 'elephant', '大象'], ['bear', 'bear', '熊'], ['zebra', 'zebra', '斑马'],
  ['giraffe', 'giraffe', '长颈鹿'], ['backpack', 'backpack', '背包'], ['umbrella', 'umbrella', '雨伞'],
  ['handbag', 'handbag', '手提包'], ['tie', 'tie', '领带'], ['suitcase', 'suitcase', '行李箱'], ['frisbee', 'frisbee', '飞盘'],
  ['skis', 'skis', '滑雪板'], ['snowboard', 'snowboard', '单板滑雪板'], ['sports_ball', 'sports ball', '球'],
  ['kite', 'kite', '风筝'], ['baseball_bat', 'baseball bat', '棒球棒'], ['baseball_glove', 'baseball glove', '棒球手套'],
  ['skateboard', 'skateboard', '滑板'], ['surfboard', 'surfboard', '冲浪板'], ['tennis_racket', 'tennis racket', '网球拍'],
  ['bottle', 'bottle', '瓶子'], ['wine_glass', 'wine glass', '酒杯'], ['cup', 'cup', '杯子'], ['fork', 'fork', '叉子'],
  ['knife', 'knife', '刀'], ['spoon', 'spoon', '勺子'], ['bowl', 'bowl', '碗'], ['banana', 'banana', '香蕉'],
  ['apple', 'apple', '苹果'], ['sandwich', 'sandwich', '三明治'], ['orange', 'orange', '橙子'], ['broccoli', 'broccoli', '西兰花'],
  ['carrot', 'carrot', '胡萝卜'], ['hot_dog', 'hot dog', '热狗'], ['pizza', 'pizza', '披萨'], ['donut', 'donut', '甜甜圈'],
  ['cake', 'cake', '蛋糕'], ['chair', 'chair', '椅子'], ['couch', 'couch', '沙发'], ['potted_plant', 'potted plant', '盆栽'],
  ['bed', 'bed', '床'], ['dining_table', 'dining table', '餐桌'], ['toilet', 'toilet', '马桶'], ['tv', 'tv', '电视'],
  ['laptop', 'laptop', '笔记本电脑'], ['mouse', 'mouse', '鼠标'], ['remote', 'remote', '遥控器'], ['keyboard', 'keyboard', '键盘'],
  ['cell_phone', 'cell phone', '手机'], ['microwave', 'microwave', '微波炉'], ['oven', 'oven', '烤箱'], ['toaster', 'toaster', '烤面包机'],
  ['sink', 'sink', '水槽'], ['refrigerator', 'refrigerator', '冰箱'], ['book', 'book', '书'], ['clock', 'clock', '时钟'],
  ['vase', 'vase', '花瓶'], ['scissors', 'scissors', '剪刀'], ['teddy_bear', 'teddy bear', '泰迪熊'],
  ['hair_drier', 'hair drier', '吹风机'], ['toothbrush', 'toothbrush', '牙刷'],
]);

/** COCO classes grouped by what they say about a picture (used by scene rules and tagging). */
export const COCO_GROUPS = {
  animal: ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'],
  vehicle: ['bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat'],
  street: ['car', 'bus', 'truck', 'motorcycle', 'bicycle', 'traffic_light', 'fire_hydrant', 'stop_sign', 'parking_meter'],
  food: ['banana', 'apple', 'sandwich', 'orange', 'broccoli', 'carrot', 'hot_dog', 'pizza', 'donut', 'cake'],
  tableware: ['bottle', 'wine_glass', 'cup', 'fork', 'knife', 'spoon', 'bowl'],
  sports: ['frisbee', 'skis', 'snowboard', 'sports_ball', 'kite', 'baseball_bat', 'baseball_glove', 'skateboard', 'surfboard', 'tennis_racket'],
  furniture: ['chair', 'couch', 'bed', 'dining_table', 'toilet', 'bench', 'potted_plant'],
  electronics: ['tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell_phone'],
  appliance: ['microwave', 'oven', 'toaster', 'sink', 'refrigerator'],
} as const satisfies Record<string, readonly string[]>;
