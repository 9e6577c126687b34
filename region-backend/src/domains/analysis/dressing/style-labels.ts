/**
 * Picture-level tags (`labels` / `labels-en`) from the garments found, their colours and textures. Rules:
 * 1. every item found is a tag (the item name; Suspenderpants/Suspenderskirt are written "Suspender pants/skirt");
 * 2. season by item: Tshirt, Sleeveless_tops, Tank_strap_tops, Shorts → Summer_season; dresses and skirts with
 *    short or no sleeves → Spring_summer_season; Jacket, Shirt_blouse, Pullover_tops, Longsleeve_dress →
 *    Fall/spring_season; Coat, Trenchcoat → Fall_winter_season, and Coat also Winter_clothing and Warm;
 * 3. style by item: Long_jeans, Leisure_pants, Tshirt, Shorts → Casual and Leisure_wear; Long_jeans with
 *    Tshirt → Youth; Shorts → Energetic and Vacation; dresses, skirts → Feminine (Slim_bottom_skirt also
 *    Slim_fit, A_line/Volumn skirts and dresses also Cute); Slim_pants_leggings → Slim_fit and Skinny;
 *    Coat, Trenchcoat → Urban_elegance and Classic_style; Shirt_blouse with Leisure_pants or a skirt →
 *    Office_lady and Business_casual; Jacket → Urban_casual; Backpacks → Travel and School_season;
 *    Shoulder_handbag → Outdoor_shopping; with a fashion detector also Sneakers → Active/athletic,
 *    Canvas_shoes → Casual, Snow_boots → Warm_winter, Pumps and Heel_sandals → Elegant, Clutch → Social_event/party;
 * 4. by colour: every garment black, grey, white or navy → Classic_style; two or more saturated
 *    (C* ≥ 45) colours → Energetic; pink as a main colour → Cute and Feminine;
 * 5. by texture: Stripe → Classic_style; Plaid → Vintage/retro; Polkadots → Vintage/retro and Cute;
 *    Camo → Outdoor and Active/athletic; Leopard → Sexy.
 */
import { fashionTag, type FashionLabel } from '@iris/shared';
import type { BasicColorId } from '@iris/shared';
import type { Texture } from '../../../vision/dressing/texture-classifier.js';

export interface StyledItem {
  item: string;
  textures: Texture[];
  /** Basic colour term and CIELAB chroma of the item's main colours. */
  colors: { basic: BasicColorId; chroma: number; share: number }[];
}

const SEASON: Record<string, string[]> = {
  Tshirt: ['Summer_season'], Sleeveless_tops: ['Summer_season'], Tank_strap_tops: ['Summer_season'], Shorts: ['Summer_season'],
  Leisure_dress: ['Spring_summer_season'], A_line_loose_dress: ['Spring_summer_season'], Slim_bottom_skirt: ['Spring_summer_season'],
  Volumn_skirt: ['Spring_summer_season'], Jacket: ['Fall/spring_season'], Shirt_blouse: ['Fall/spring_season'],
  Pullover_tops: ['Fall/spring_season'], Longsleeve_dress: ['Fall/spring_season'],
  Coat: ['Fall_winter_season', 'Winter_clothing', 'Warm'], Trenchcoat: ['Fall_winter_season'],
};

const STYLE: Record<string, string[]> = {
  Long_jeans: ['Casual', 'Leisure_wear'], Leisure_pants: ['Casual', 'Leisure_wear'], Tshirt: ['Casual', 'Leisure_wear'],
  Shorts: ['Casual', 'Leisure_wear', 'Energetic', 'Vacation'], Leisure_dress: ['Feminine'], Longsleeve_dress: ['Feminine'],
  A_line_loose_dress: ['Feminine', 'Cute'], Volumn_skirt: ['Feminine', 'Cute'], Slim_bottom_skirt: ['Feminine', 'Slim_fit'],
  Slim_pants_leggings: ['Slim_fit', 'Skinny'], Coat: ['Urban_elegance', 'Classic_style'], Trenchcoat: ['Urban_elegance', 'Classic_style'],
  Jacket: ['Urban_casual'], Backpacks: ['Travel', 'School_season'], Shoulder_handbag: ['Outdoor_shopping'],
  Sneakers: ['Active/athletic'], Canvas_shoes: ['Casual'], Snow_boots: ['Warm_winter'], Pumps: ['Elegant'],
  Heel_sandals: ['Elegant'], Clutch: ['Social_event/party'],
};

const TEXTURE: Partial<Record<Texture, string[]>> = {
  Stripe: ['Classic_style'], Plaid: ['Vintage/retro'], Polkadots: ['Vintage/retro', 'Cute'], Camo: ['Outdoor', 'Active/athletic'], Leopard: ['Sexy'],
};

const ITEM_TAG: Record<string, string> = { Suspenderpants: 'Suspender pants', Suspenderskirt: 'Suspender skirt' };

export function styleLabels(items: StyledItem[]): FashionLabel[] {
  const tags: string[] = [];
  const add = (...names: string[]) => {
    for (const n of names) if (!tags.includes(n)) tags.push(n);
  };
  const names = items.map((i) => i.item);
  add(...names.map((n) => ITEM_TAG[n] ?? n));
  for (const n of names) add(...(SEASON[n] ?? []));
  for (const n of names) add(...(STYLE[n] ?? []));
  if (names.includes('Long_jeans') && names.includes('Tshirt')) add('Youth');
  if (names.includes('Shirt_blouse') && names.some((n) => n === 'Leisure_pants' || n.endsWith('_skirt'))) add('Office_lady', 'Business_casual');

  const main = items.flatMap((i) => i.colors.filter((c) => c.share >= 0.25));
  const sober: BasicColorId[] = ['black', 'gray', 'white'];
  if (main.length && main.every((c) => sober.includes(c.basic) || (c.basic === 'blue' && c.chroma < 30))) add('Classic_style');
  if (new Set(main.filter((c) => c.chroma >= 45).map((c) => c.basic)).size >= 2) add('Energetic');
  if (main.some((c) => c.basic === 'pink')) add('Cute', 'Feminine');
  for (const i of items) for (const t of i.textures) add(...(TEXTURE[t] ?? []));
  return tags.map((t) => fashionTag(t)).filter((t) => t !== undefined);
}
