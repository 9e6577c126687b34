/** Categories of pornography identification (_0000024): exactly the specification's two. */
import { labelTable } from './label-table.js';

export const PORN_LABELS = labelTable('porn', [
  ['non-porn', 'Non-porn', '非色情'],
  ['porn', 'Porn', '色情'],
]);
