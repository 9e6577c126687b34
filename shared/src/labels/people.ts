/** Labels of face detection (_0000049), human body detection (_0000059) and people detection (_0000187). */
import { labelTable } from './label-table.js';

export const FACE_LABELS = labelTable('face', [['face', 'face', '人脸']]);

export const BODY_LABELS = labelTable('body', [['person', 'person', '人体']]);

export const PEOPLE_LABELS = labelTable('people', [
  ['male', 'male', '男性'],
  ['female', 'female', '女性'],
  ['adult', 'adult', '成人'],
  ['kid', 'kid', '儿童'],
]);
