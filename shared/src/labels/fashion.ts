/**
 * Labels of fashion analysis (_0000111), from the specification's lists, with Chinese names.
 * `item`/`item-en` name a garment or accessory, `textures`/`textures-en` its pattern, `labels`/`labels-en`
 * the picture's style and season tags (which also repeat the items found).
 */
export interface FashionLabel {
  en: string;
  zh: string;
}

function table(rows: readonly (readonly [string, string])[]): readonly FashionLabel[] {
  return rows.map(([en, zh]) => ({ en, zh }));
}

/** Every `item-en` value of the specification. */
export const FASHION_ITEMS = table([
  ['Mid_long_boots', '中长靴'], ['Hoodies', '连帽卫衣'], ['Polo_shirt', 'POLO衫'], ['Wedge_shoes', '坡跟鞋'],
  ['Jumpsuit_romper', '连体裤'], ['Leather_loafer_shoes', '皮质乐福鞋'], ['Canvas_shoes', '帆布鞋'], ['Rainboots', '雨靴'],
  ['Trenchcoat', '风衣'], ['Sleeveless_tops', '无袖上衣'], ['Shirt_dress', '衬衫裙'], ['Volumn_skirt', '蓬蓬裙'],
  ['Flat_sandals', '平底凉鞋'], ['Chinese_dress', '旗袍'], ['Backpacks', '双肩包'], ['Suspenderpants', '背带裤'],
  ['Shoulder_handbag', '单肩包'], ['Wool_sweater_tops', '毛衣'], ['Heel_sandals', '高跟凉鞋'], ['Long_jeans', '牛仔长裤'],
  ['Suspenderskirt', '背带裙'], ['Down_jacket', '羽绒服'], ['Outdoor_packet', '户外小包'], ['Padded_jacket', '棉服'],
  ['Pumps', '浅口高跟鞋'], ['Slim_bottom_skirt', '修身半身裙'], ['Sneakers', '运动鞋'], ['Cardigans', '开衫'],
  ['Booties_short_boots', '短靴'], ['Waisted_dress', '收腰连衣裙'], ['Outerwear_vest', '马甲'], ['Shorts', '短裤'],
  ['Culotte_pants', '阔腿裤'], ['Swim_suits', '泳衣'], ['Leisure_dress', '休闲连衣裙'], ['Blazers', '西装外套'],
  ['Slim_pants_leggings', '紧身裤'], ['A_line_loose_dress', 'A字宽松连衣裙'], ['Cape_coat', '斗篷外套'],
  ['Knit_hollow_out_tops', '镂空针织衫'], ['Bodycon_dress', '紧身连衣裙'], ['Pullover_tops', '套头衫'], ['Slippers', '拖鞋'],
  ['Flats_shoes', '平底鞋'], ['Leisure_pants', '休闲裤'], ['Shirt_blouse', '衬衫'], ['Fur', '皮草'], ['Leather', '皮衣'],
  ['Sports_jackets', '运动外套'], ['Chiffon_tops', '雪纺衫'], ['Tailored_pants', '西裤'], ['Longsleeve_dress', '长袖连衣裙'],
  ['Jacket', '夹克'], ['Tshirt', 'T恤'], ['Clutch', '手拿包'], ['Wool_coat', '毛呢大衣'], ['Formal_dress', '礼服'],
  ['Snow_boots', '雪地靴'], ['Tank_strap_tops', '吊带背心'], ['Coat', '大衣'], ['Wallets', '钱包'],
]);

/** Every `textures-en` value of the specification. */
export const FASHION_TEXTURES = table([
  ['Stripe', '条纹'], ['Geometric', '几何'], ['Plaid', '格子'], ['Letters', '字母'], ['Animals', '动物'], ['Camo', '迷彩'],
  ['Human', '人物'], ['Floral', '花卉'], ['Printing', '印花'], ['Contrast', '撞色'], ['Cartoon', '卡通'],
  ['Polkadots', '波点'], ['Leopard', '豹纹'], ['Pure', '纯色'],
]);

/** Every `labels-en` value of the specification (style, season and occasion tags, and item names). */
export const FASHION_TAGS = table([
  ['A_line_loose_dress', 'A字宽松连衣裙'], ['Polo_shirt', 'POLO衫'], ['Tshirt', 'T恤'], ['Slim_bottom_skirt', '修身半身裙'],
  ['Warm', '保暖'], ['Suspender pants', '背带裤'], ['Suspender skirt', '背带裙'], ['Longsleeve_dress', '长袖连衣裙'],
  ['Shirt_blouse', '衬衫'], ['Shirt_dress', '衬衫裙'], ['Sports_jackets', '运动外套'], ['Spring_summer_season', '春夏季'],
  ['Style_recommendation', '风格推荐'], ['Tank_strap_tops', '吊带背心'], ['Volumn_skirt', '蓬蓬裙'], ['Coat', '大衣'],
  ['Shoulder_handbag', '单肩包'], ['Winter_clothing', '冬装'], ['Cape_coat', '斗篷外套'], ['Urban_casual', '都市休闲'],
  ['Urban_elegance', '都市优雅'], ['Holiday', '假日'], ['Shorts', '短裤'], ['Booties_short_boots', '短靴'],
  ['Canvas_shoes', '帆布鞋'], ['Trenchcoat', '风衣'], ['Vintage/retro', '复古'], ['Experienced', '干练'],
  ['Heel_sandals', '高跟凉鞋'], ['Classical', '古典'], ['Outdoor_shopping', '户外购物'], ['Outdoor_packet', '户外小包'],
  ['Active/athletic', '运动'], ['Energetic', '活力'], ['Jacket', '夹克'], ['Leisure_wear', '休闲装'], ['Youth', '青春'],
  ['Bodycon_dress', '紧身连衣裙'], ['Classic_style', '经典'], ['Social_event/party', '社交派对'], ['Cardigans', '开衫'],
  ['School_season', '开学季'], ['Cute', '可爱'], ['Culotte_pants', '阔腿裤'], ['Formal_dress', '礼服'],
  ['Jumpsuit_romper', '连体裤'], ['Travel', '旅行'], ['Wool_coat', '毛呢大衣'], ['Padded_jacket', '棉服'],
  ['Long_jeans', '牛仔长裤'], ['Warm_winter', '暖冬'], ['Fur', '皮草'], ['Leather_loafer_shoes', '皮质乐福鞋'],
  ['Leather', '皮衣'], ['Flat_sandals', '平底凉鞋'], ['Wedge_shoes', '坡跟鞋'], ['Chinese_dress', '旗袍'],
  ['Wallets', '钱包'], ['Pumps', '浅口高跟鞋'], ['Innocent', '清纯'], ['Fall_winter_season', '秋冬季'],
  ['Fall/spring_season', '春秋季'], ['Backpacks', '双肩包'], ['Casual', '休闲'], ['Pullover_tops', '套头衫'],
  ['Office_lady', '通勤OL'], ['Slippers', '拖鞋'], ['Outdoor', '户外'], ['Outerwear_vest', '马甲'], ['Hoodies', '连帽卫衣'],
  ['Sleeveless_tops', '无袖上衣'], ['Ball_party', '舞会'], ['Blazers', '西装外套'], ['Tailored_pants', '西裤'],
  ['Summer_season', '夏季'], ['Tall', '显高'], ['Graceful', '优雅'], ['Skinny', '显瘦'], ['Modern', '摩登'],
  ['Slim_pants_leggings', '紧身裤'], ['Sexy', '性感'], ['Vacation', '度假'], ['Leisure_pants', '休闲裤'],
  ['Leisure_dress', '休闲连衣裙'], ['Slim_fit', '修身'], ['Snow_boots', '雪地靴'], ['Chiffon_tops', '雪纺衫'],
  ['Wool_sweater_tops', '毛衣'], ['Swim_suits', '泳衣'], ['Elegant', '高雅'], ['Feminine', '女人味'], ['Rainboots', '雨靴'],
  ['Down_jacket', '羽绒服'], ['Dating', '约会'], ['Sneakers', '运动鞋'], ['Knit_hollow_out_tops', '镂空针织衫'],
  ['Intellectual', '知性'], ['Business_attire', '商务正装'], ['Mid_long_boots', '中长靴'], ['Business_casual', '商务休闲'],
  ['Social', '社交'], ['Flats_shoes', '平底鞋'], ['Waisted_dress', '收腰连衣裙'], ['Clutch', '手拿包'],
]);

const byEn = (rows: readonly FashionLabel[]) => new Map(rows.map((r) => [r.en, r]));
const ITEMS_BY_EN = byEn(FASHION_ITEMS);
const TEXTURES_BY_EN = byEn(FASHION_TEXTURES);
const TAGS_BY_EN = byEn(FASHION_TAGS);

export function fashionItem(en: string): FashionLabel | undefined {
  return ITEMS_BY_EN.get(en);
}
export function fashionTexture(en: string): FashionLabel | undefined {
  return TEXTURES_BY_EN.get(en);
}
export function fashionTag(en: string): FashionLabel | undefined {
  return TAGS_BY_EN.get(en);
}
