/**
 * Hand labels of the tagging evaluation's photos. `subject` is the subject's COCO class, or null when the default
 * pack has none for it (`cannot` says what it is); `present` lists other COCO classes clearly visible; `kind`
 * groups the results. The photos are read from Debian packages at evaluation time (debian-datasets.ts).
 *
 * - `wallpaper`: Lomiri, UKUI and Plasma wallpapers, the subject in a scene (file: end of the photo id).
 * - `on-white`: Tux Paint's photographed stamps, one object cut out and flattened on white (file: path under
 *   usr/share/tuxpaint/stamps). No other evaluation reads this package.
 */
export type SubjectKind = 'wallpaper' | 'animal' | 'bird' | 'food' | 'object' | 'vehicle' | 'cannot';

export interface TaggingLabel {
  file: string;
  source: 'wallpaper' | 'on-white';
  subject: string | null;
  kind: SubjectKind;
  present?: string[];
  cannot?: string;
}

const wall = (file: string, subject: string | null, cannot?: string): TaggingLabel => ({
  file,
  source: 'wallpaper',
  subject,
  kind: subject ? 'wallpaper' : 'cannot',
  ...(cannot ? { cannot } : {}),
});
const white = (file: string, kind: Exclude<SubjectKind, 'wallpaper' | 'cannot'>, subject: string): TaggingLabel => ({ file, source: 'on-white', subject, kind });
const whiteCannot = (file: string, cannot: string): TaggingLabel => ({ file, source: 'on-white', subject: null, kind: 'cannot', cannot });

export const TAGGING_LABELS: TaggingLabel[] = [
  wall('Picture_0B_by_freespace.jpg', 'bowl'),
  wall('free_by_Peter_Nerlich.jpg', 'bird'),
  wall('friends_by_Aitzol_Berasategi.jpg', 'dog'),
  wall('greentock_by_Peter_Nerlich.jpg', 'clock'),
  wall('Kleiber_by_Lukas_Baubkus.jpg', 'bird'),
  wall('ColorfulCups/contents/images/2560x1600.jpg', 'cup'),
  wall('EveningGlow/contents/images/2560x1600.jpg', 'boat'),
  wall('Kite/contents/images/2560x1600.jpg', 'kite'),
  wall('Dragonfly_by_Bolly.jpg', null, 'insect (dragonfly)'),
  wall('goldfish.png', null, 'fish (drawn)'),
  wall('seeding_by_Clements_Engelhardt.jpg', null, 'flower (dandelion)'),
  wall('calla.png', null, 'flower (drawn)'),
  wall('Picture_1A_by_freespace.jpg', null, 'paint brushes'),
  wall('FallenLeaf/contents/images/2560x1600.jpg', null, 'leaf'),

  ...['blackbird', 'crow', 'duck', 'owl', 'pigeon', 'seagull', 'magpie', 'heron_greatblue', 'peacock', 'rooster', 'pelican', 'tucan'].map((n) =>
    white(`animals/birds/${n}.png`, 'bird', 'bird'),
  ),
  white('animals/mammals/dogs/dog.png', 'animal', 'dog'),
  white('animals/mammals/equines/horse.png', 'animal', 'horse'),
  white('animals/mammals/equines/zebra.png', 'animal', 'zebra'),
  white('animals/mammals/giraffe.png', 'animal', 'giraffe'),
  white('animals/mammals/elephant.png', 'animal', 'elephant'),
  white('animals/mammals/bears/bear.png', 'animal', 'bear'),
  white('animals/mammals/bears/european-bear.png', 'animal', 'bear'),
  white('animals/mammals/bovines/cow.png', 'animal', 'cow'),
  white('animals/mammals/bovines/cow_white.png', 'animal', 'cow'),
  white('animals/mammals/bovines/bull.png', 'animal', 'cow'),
  white('animals/mammals/bovines/sheep.png', 'animal', 'sheep'),
  white('animals/mammals/bovines/ram.png', 'animal', 'sheep'),
  white('animals/mammals/bovines/sheep_lamb.png', 'animal', 'sheep'),
  white('food/fruit/banana.png', 'food', 'banana'),
  white('food/fruit/apple_red.png', 'food', 'apple'),
  white('food/fruit/apple_green.png', 'food', 'apple'),
  white('food/fruit/orange.png', 'food', 'orange'),
  white('food/vegetables/broccoli.png', 'food', 'broccoli'),
  white('food/vegetables/carrot.png', 'food', 'carrot'),
  white('animals/mammals/bears/toys/edward_bear.png', 'object', 'teddy_bear'),
  white('household/dishes/mug.png', 'object', 'cup'),
  white('household/toilet.png', 'object', 'toilet'),
  white('household/arttools/scissors_small_open.png', 'object', 'scissors'),
  white('sports/basketball.png', 'object', 'sports_ball'),
  white('sports/soccer.png', 'object', 'sports_ball'),
  white('sports/tennis_ball.png', 'object', 'sports_ball'),
  white('sports/tennis_racket.png', 'object', 'tennis_racket'),
  white('vehicles/auto/sedan.png', 'vehicle', 'car'),
  white('vehicles/auto/beetle.png', 'vehicle', 'car'),
  white('vehicles/auto/truck.png', 'vehicle', 'truck'),
  white('vehicles/emergency/firetruck.png', 'vehicle', 'truck'),
  white('vehicles/garbagetruck.png', 'vehicle', 'truck'),
  white('vehicles/masstransit/green_korean_bus.png', 'vehicle', 'bus'),
  white('vehicles/flight/planes/747.png', 'vehicle', 'airplane'),

  whiteCannot('animals/amphibians/frog.png', 'frog'),
  whiteCannot('animals/fish/clownfish.png', 'fish'),
  whiteCannot('plants/flowers/rose.png', 'flower (rose)'),
  whiteCannot('food/vegetables/mushroom.png', 'mushroom'),
  whiteCannot('food/vegetables/tomato.png', 'tomato'),
  whiteCannot('food/fruit/pineapple.png', 'pineapple'),
  whiteCannot('food/fruit/grapes.png', 'grapes'),
  whiteCannot('animals/mammals/cats/tiger.png', 'tiger'),
  whiteCannot('animals/mammals/cats/lion.png', 'lion'),
  whiteCannot('animals/mammals/dogs/fox.png', 'fox'),
  whiteCannot('animals/mammals/equines/donkey.png', 'donkey'),
  whiteCannot('animals/mammals/pig.png', 'pig'),
  whiteCannot('animals/mammals/rodents/squirrel.png', 'squirrel'),
  whiteCannot('animals/marsupials/kangaroo.png', 'kangaroo'),
  whiteCannot('animals/lizards/iguana.png', 'iguana'),
  whiteCannot('hobbies/music/string/guitar_classical.png', 'guitar'),
  whiteCannot('hobbies/camera_35mm.png', 'camera'),
  whiteCannot('household/dishes/teapot.png', 'teapot'),
  whiteCannot('household/kettle.png', 'kettle'),
  whiteCannot('household/tools/hammer.png', 'hammer'),
];
