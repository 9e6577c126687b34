/**
 * Items the rules cannot see, from the detector of fashion detection (stage `fashion-detector`, falling back
 * to the COCO `object-detector`): with the default pack, handbag → Shoulder_handbag and backpack →
 * Backpacks; with an operator-supplied fashion detector, every label of fashion detection maps to its item
 * (shoes, boots, bags, accessories…). Garments the rules already classify stay with the rules.
 */
import { fashionItem } from '@iris/shared';
import { COCO_TO_FASHION } from '../detect/fashion.handler.js';

/** Items `garment-classifier.ts` produces; detector boxes with these items are left to the rules. */
export const RULE_ITEMS: ReadonlySet<string> = new Set([
  'Tshirt', 'Sleeveless_tops', 'Tank_strap_tops', 'Pullover_tops', 'Shirt_blouse', 'Jacket', 'Coat', 'Trenchcoat',
  'Leisure_dress', 'Longsleeve_dress', 'A_line_loose_dress', 'Shorts', 'Long_jeans', 'Leisure_pants',
  'Slim_pants_leggings', 'Slim_bottom_skirt', 'Volumn_skirt',
]);

/** Fashion-detection labels whose item name is not the label's own spelling. */
const LABEL_TO_ITEM: Readonly<Record<string, string>> = {
  qipao: 'Chinese_dress',
  beidaiku: 'Suspenderpants',
  beidaiqun: 'Suspenderskirt',
  mianfu: 'Padded_jacket',
  'outdoor-xiaobao': 'Outdoor_packet',
  'women-sports-jackets': 'Sports_jackets',
  'tailored-pants-women': 'Tailored_pants',
  'longsleeve-dress-for-fall': 'Longsleeve_dress',
  'knit-hollow-out-tops': 'Knit_hollow_out_tops',
};

/** The fashion-analysis item of a detector label (COCO or fashion detection), if there is one. */
export function detectorItem(label: string): string | undefined {
  const fashion = COCO_TO_FASHION[label] ?? label;
  const mapped = LABEL_TO_ITEM[fashion.toLowerCase()];
  if (mapped) return mapped;
  const spelled = fashion.replace(/-/g, '_');
  const item = fashionItem(spelled.charAt(0).toUpperCase() + spelled.slice(1).toLowerCase());
  return item?.en;
}
