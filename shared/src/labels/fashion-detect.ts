/** Labels of fashion detection v2.0 (_0000173), as the specification lists them (lower case). */
import { labelTable } from './label-table.js';

export const FASHION_DETECT_LABELS = labelTable('fashion', [
  ['flats-shoes', 'flats-shoes', '平底鞋'], ['mid-long-boots', 'mid-long-boots', '中长靴'], ['hoodies', 'hoodies', '连帽卫衣'],
  ['polo-shirt', 'polo-shirt', 'POLO衫'], ['wedge-shoes', 'wedge-shoes', '坡跟鞋'], ['rainboots', 'rainboots', '雨靴'],
  ['trenchcoat', 'trenchcoat', '风衣'], ['tshirt', 'tshirt', 'T恤'], ['sleeveless-tops', 'sleeveless-tops', '无袖上衣'],
  ['shirt-dress', 'shirt-dress', '衬衫裙'], ['volumn-skirt', 'volumn-skirt', '蓬蓬裙'], ['flat-sandals', 'flat-sandals', '平底凉鞋'],
  ['qipao', 'qipao', '旗袍'], ['backpacks', 'backpacks', '双肩包'], ['beidaiku', 'beidaiku', '背带裤'],
  ['snow-boots', 'snow-boots', '雪地靴'], ['wool-sweater-tops', 'wool-sweater-tops', '毛衣'], ['heel-sandals', 'heel-sandals', '高跟凉鞋'],
  ['women-sports-jackets', 'women-sports-jackets', '女士运动外套'], ['shoulder-handbag', 'shoulder-handbag', '单肩包'],
  ['beidaiqun', 'beidaiqun', '背带裙'], ['leather-loafer-shoes', 'leather-loafer-shoes', '皮质乐福鞋'],
  ['canvas-shoes', 'canvas-shoes', '帆布鞋'], ['outdoor-xiaobao', 'outdoor-xiaobao', '户外小包'], ['mianfu', 'mianfu', '棉服'],
  ['sneakers', 'sneakers', '运动鞋'], ['slim-bottom-skirt', 'slim-bottom-skirt', '修身半身裙'], ['cardigans', 'cardigans', '开衫'],
  ['booties-short-boots', 'booties-short-boots', '短靴'], ['outerwear-vest', 'outerwear-vest', '马甲'], ['shorts', 'shorts', '短裤'],
  ['down-jacket', 'down-jacket', '羽绒服'], ['leisure-dress', 'leisure-dress', '休闲连衣裙'], ['jumpsuit-romper', 'jumpsuit-romper', '连体裤'],
  ['wallets', 'wallets', '钱包'], ['blazers', 'blazers', '西装外套'], ['swim-suits', 'swim-suits', '泳衣'], ['wool-coat', 'wool-coat', '毛呢大衣'],
  ['cape-coat', 'cape-coat', '斗篷外套'], ['knit-hollow-out-tops', 'knit-hollow-out-tops', '镂空针织衫'],
  ['bodycon-dress', 'bodycon-dress', '紧身连衣裙'], ['pullover-tops', 'pullover-tops', '套头衫'], ['waisted-dress', 'waisted-dress', '收腰连衣裙'],
  ['leisure-pants', 'leisure-pants', '休闲裤'], ['shirt-blouse', 'shirt-blouse', '衬衫'], ['fur', 'fur', '皮草'],
  ['culotte-pants', 'culotte-pants', '阔腿裤'], ['clutch', 'clutch', '手拿包'], ['long-jeans', 'long-jeans', '牛仔长裤'],
  ['slim-pants-leggings', 'slim-pants-leggings', '紧身裤'], ['chiffon-tops', 'chiffon-tops', '雪纺衫'],
  ['tailored-pants-women', 'tailored-pants-women', '女士西裤'], ['jacket', 'jacket', '夹克'], ['leather', 'leather', '皮衣'],
  ['a-line-loose-dress', 'a-line-loose-dress', 'A字宽松连衣裙'], ['coat', 'coat', '大衣'], ['pumps', 'pumps', '浅口高跟鞋'],
  ['formal-dress', 'formal-dress', '礼服'], ['longsleeve-dress-for-fall', 'longsleeve-dress-for-fall', '秋季长袖连衣裙'],
  ['slippers', 'slippers', '拖鞋'], ['tank-strap-tops', 'tank-strap-tops', '吊带背心'], ['jewellery', 'jewellery', '珠宝首饰'],
  ['glasses', 'glasses', '眼镜'], ['goggles', 'goggles', '护目镜'], ['watch', 'watch', '手表'], ['belt', 'belt', '腰带'],
  ['scarf', 'scarf', '围巾'], ['glove', 'glove', '手套'], ['cap', 'cap', '帽子'], ['non-fashion', 'non-fashion', '非服饰'],
]);
