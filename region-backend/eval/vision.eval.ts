/**
 * `npm run eval -- vision`: the vision detect and classify services on real photos from Debian packages
 * (darknet, python3-skimage, opencv-doc, mate-backgrounds), through the real handlers and inference pool.
 *
 * (a) Objects: the COCO detector at the services' threshold (0.25) against objects written down by hand per
 *     photo; hit rate = expected objects found / expected objects; "other" lists everything else it reported.
 * (b) Faces (_0000049) and people (_0000187) on the photos with people.
 * (c) Pornography (_0000024) over every test photo (none is pornographic): share answered Non-porn.
 * (d) Scenes (_0000039): expected scene labels per photo, hit when the label is among the answered scenes.
 * (e) General tagging (_0000159): the first tags of a few photos.
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { printTable } from '../../scripts/table.js';
import type { AnalysisContext, AnalysisHandler, Envelope } from '../src/domains/analysis/analysis-registry.js';
import { facesHandler } from '../src/domains/analysis/detect/faces.handler.js';
import { peopleHandler } from '../src/domains/analysis/detect/people.handler.js';
import { furnitureHandler } from '../src/domains/analysis/detect/furniture.handler.js';
import { fashionHandler } from '../src/domains/analysis/detect/fashion.handler.js';
import { OBJECT_MIN_SCORE } from '../src/domains/analysis/detect/detect-limits.js';
import { detect, OBJECT_STAGE, sharedImage } from '../src/domains/analysis/detect/vision-calls.js';
import { pornHandler } from '../src/domains/analysis/classify/porn.handler.js';
import { sceneHandler } from '../src/domains/analysis/classify/scene.handler.js';
import { taggingHandler } from '../src/domains/analysis/classify/tagging.handler.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { debianPackage, isMissing, loadTestPhotos } from './lib/debian-datasets.js';

const DARKNET = ['darknet', 'usr/share/darknet/data'] as const;
const SKIMAGE = ['python3-skimage', 'usr/lib/python3/dist-packages/skimage/data'] as const;
const OPENCV = ['opencv-doc', 'usr/share/doc/opencv-doc/examples/data'] as const;
const MATE = ['mate-backgrounds', 'usr/share/backgrounds/mate/nature'] as const;

interface Truth {
  source: readonly [string, string];
  file: string;
  /** COCO classes that are clearly in the photo; `a|b` accepts either (a pickup is a car or a truck). */
  objects: string[];
  /** Scene labels a person would give it. */
  scenes?: string[];
  faces?: number;
  /** Genders of the visible faces, for people detection. */
  genders?: ('male' | 'female')[];
}

const TRUTH: Truth[] = [
  { source: DARKNET, file: 'dog.jpg', objects: ['dog', 'bicycle', 'car|truck'], scenes: ['outdoor', 'pets'], faces: 0 },
  { source: DARKNET, file: 'horses.jpg', objects: ['horse'], scenes: ['outdoor', 'animals'], faces: 0 },
  { source: DARKNET, file: 'person.jpg', objects: ['person', 'dog', 'horse'], scenes: ['outdoor', 'animals'], faces: 1 },
  { source: DARKNET, file: 'eagle.jpg', objects: ['bird'], scenes: ['animals'], faces: 0 },
  { source: DARKNET, file: 'giraffe.jpg', objects: ['giraffe', 'zebra'], scenes: ['outdoor', 'animals', 'nature'], faces: 0 },
  { source: DARKNET, file: 'kite.jpg', objects: ['kite', 'person'], scenes: ['outdoor', 'beach'] },
  { source: DARKNET, file: 'scream.jpg', objects: [] },
  { source: SKIMAGE, file: 'astronaut.png', objects: ['person'], scenes: ['portrait'], faces: 1, genders: ['female'] },
  { source: SKIMAGE, file: 'coffee.png', objects: ['cup'], scenes: ['indoor', 'dining'], faces: 0 },
  { source: SKIMAGE, file: 'chelsea.png', objects: ['cat'], scenes: ['pets'], faces: 0 },
  { source: SKIMAGE, file: 'rocket.jpg', objects: [], scenes: ['night'], faces: 0 },
  { source: SKIMAGE, file: 'motorcycle_left.png', objects: ['motorcycle'], faces: 0 },
  { source: SKIMAGE, file: 'camera.png', objects: ['person'], scenes: ['outdoor'], faces: 1, genders: ['male'] },
  { source: SKIMAGE, file: 'page.png', objects: [], scenes: ['document'], faces: 0 },
  { source: OPENCV, file: 'messi5.jpg', objects: ['person', 'sports_ball'], scenes: ['sports'], faces: 1, genders: ['male'] },
  { source: OPENCV, file: 'basketball1.png', objects: ['person', 'sports_ball'], scenes: ['sports'] },
  { source: OPENCV, file: 'fruits.jpg', objects: ['orange'], scenes: ['food'], faces: 0 },
  { source: OPENCV, file: 'orange.jpg', objects: ['orange'], scenes: ['food'], faces: 0 },
  { source: OPENCV, file: 'apple.jpg', objects: ['apple'], scenes: ['food'], faces: 0 },
  { source: OPENCV, file: 'left01.jpg', objects: ['person', 'tv', 'keyboard'], scenes: ['indoor', 'office'] },
  { source: OPENCV, file: 'licenseplate_motion.jpg', objects: ['car'], scenes: ['street'], faces: 0 },
  { source: OPENCV, file: 'home.jpg', objects: [], scenes: ['outdoor', 'sky'], faces: 0 },
  { source: OPENCV, file: 'building.jpg', objects: [], scenes: ['outdoor'], faces: 0 },
  { source: OPENCV, file: 'leuvenA.jpg', objects: [], scenes: ['outdoor'], faces: 0 },
  { source: OPENCV, file: 'starry_night.jpg', objects: [], faces: 0 },
  { source: OPENCV, file: 'baboon.jpg', objects: [], scenes: ['animals'] },
  { source: MATE, file: 'GreenMeadow.jpg', objects: [], scenes: ['outdoor', 'nature'], faces: 0 },
  { source: MATE, file: 'Blinds.jpg', objects: [], scenes: ['nature'], faces: 0 },
  { source: MATE, file: 'LadyBird.jpg', objects: [], scenes: ['nature'], faces: 0 },
  { source: MATE, file: 'Dune.jpg', objects: [], scenes: ['outdoor'], faces: 0 },
];

const TAGGED = ['dog.jpg', 'kite.jpg', 'coffee.png', 'messi5.jpg', 'left01.jpg', 'GreenMeadow.jpg'];

async function decode(file: string): Promise<RgbImage> {
  const { data, info } = await sharp(file).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

async function run<E extends Envelope>(ctx: AnalysisContext, handler: AnalysisHandler<E>, rgb: RgbImage, params: Record<string, string> = {}) {
  return handler.run(ctx, { rgb, encoded: new Uint8Array(), params, lang: 'en' });
}

type Item = { type?: string; category?: string; puid: string; score: number };
const fmt = (items: Item[], n = 8) => items.slice(0, n).map((i) => `${i.type ?? i.category} ${i.score.toFixed(2)}`).join(', ') || '–';

export default async function evaluate(): Promise<void> {
  const pool = new InferencePool(Math.max(1, os.availableParallelism()));
  const ctx: AnalysisContext = { pool };
  // Pool threads do not keep the process alive on their own (the server owns that); an eval must.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const photos: { truth: Truth; rgb: RgbImage }[] = [];
    const missing = new Set<string>();
    for (const truth of TRUTH) {
      const pkg = debianPackage(truth.source[0]);
      if (isMissing(pkg)) {
        missing.add(`${pkg.pkg} (${pkg.reason})`);
        continue;
      }
      photos.push({ truth, rgb: await decode(path.join(pkg.root, truth.source[1], truth.file)) });
    }
    if (missing.size) console.log(`Skipped photos of missing packages: ${[...missing].join('; ')}\n`);

    // (a) Objects
    let expected = 0;
    let hits = 0;
    let others = 0;
    const objectRows: (string | number)[][] = [];
    for (const { truth, rgb } of photos) {
      const found = await detect(ctx, { stage: OBJECT_STAGE, image: sharedImage(rgb), minScore: OBJECT_MIN_SCORE });
      const best = new Map<string, number>();
      for (const d of found) best.set(d.label, Math.max(best.get(d.label) ?? 0, d.score));
      const hit = truth.objects.filter((o) => o.split('|').some((alt) => best.has(alt)));
      const accepted = new Set(truth.objects.flatMap((o) => o.split('|')));
      const other = [...best.keys()].filter((l) => !accepted.has(l));
      expected += truth.objects.length;
      hits += hit.length;
      others += other.length;
      objectRows.push([
        truth.file,
        truth.objects.join(', ') || '–',
        [...best].sort((a, b) => b[1] - a[1]).map(([l, s]) => `${l} ${s.toFixed(2)}`).join(', ') || '–',
        `${hit.length}/${truth.objects.length}`,
        other.join(', ') || '–',
      ]);
    }
    console.log(`### Objects (COCO detector, score ≥ ${OBJECT_MIN_SCORE})\n`);
    printTable(['photo', 'expected', 'found (best score per class)', 'hits', 'other classes'], objectRows);
    console.log(`Objects: ${hits}/${expected} expected objects found (hit rate ${(hits / Math.max(1, expected)).toFixed(3)}); ${others} other classes reported over ${photos.length} photos.\n`);

    // (b) Faces and people
    const faceRows: (string | number)[][] = [];
    let faceExact = 0;
    let faceCases = 0;
    let genderHits = 0;
    let genderCases = 0;
    for (const { truth, rgb } of photos) {
      if (truth.faces === undefined) continue;
      const faces = (await run(ctx, facesHandler, rgb)).boxes_detected as Item[];
      const people = (await run(ctx, peopleHandler, rgb)).boxes_detected as Item[];
      faceCases++;
      if (faces.length === truth.faces) faceExact++;
      const genders = people.filter((p) => p.type === 'male' || p.type === 'female').map((p) => p.type!);
      for (const g of truth.genders ?? []) {
        genderCases++;
        if (genders.includes(g)) genderHits++;
      }
      faceRows.push([truth.file, truth.faces, faces.length, fmt(faces, 4), (truth.genders ?? []).join(', ') || '–', fmt(people, 6)]);
    }
    console.log('### Faces (_0000049) and people (_0000187)\n');
    printTable(['photo', 'faces expected', 'faces found', 'face scores', 'genders expected', 'people labels'], faceRows);
    console.log(`Faces: exact face count on ${faceExact}/${faceCases} photos; genders right ${genderHits}/${genderCases}.\n`);

    // Furniture and fashion on the photos where the default pack can see them
    const spot: (string | number)[][] = [];
    for (const { truth, rgb } of photos.filter((p) => ['coffee.png', 'left01.jpg', 'person.jpg', 'kite.jpg', 'dog.jpg'].includes(p.truth.file))) {
      spot.push([truth.file, fmt((await run(ctx, furnitureHandler, rgb)).boxes_detected as Item[]), fmt((await run(ctx, fashionHandler, rgb)).boxes_detected as Item[])]);
    }
    console.log('### Furniture (_0000171) and fashion (_0000173) detection\n');
    printTable(['photo', 'furniture', 'fashion'], spot);

    // (c) Pornography over every test photo
    const all = loadTestPhotos();
    const pornScores: { id: string; porn: number }[] = [];
    for (const photo of all.photos) {
      const results = (await run(ctx, pornHandler, await decode(photo.path))).results as Item[];
      pornScores.push({ id: photo.id, porn: results.find((r) => r.puid === 'porn.porn')!.score });
    }
    pornScores.sort((a, b) => b.porn - a.porn);
    const nonPorn = pornScores.filter((p) => p.porn < 0.5).length;
    console.log('### Pornography (_0000024) on ordinary photos\n');
    printTable(
      ['photos', 'answered Non-porn', 'mean P(Porn)', 'highest P(Porn)'],
      [[pornScores.length, `${nonPorn} (${((100 * nonPorn) / Math.max(1, pornScores.length)).toFixed(1)}%)`, pornScores.reduce((s, p) => s + p.porn, 0) / Math.max(1, pornScores.length), pornScores.slice(0, 3).map((p) => `${p.id} ${p.porn.toFixed(3)}`).join(', ')]],
    );

    // (d) Scenes
    const sceneRows: (string | number)[][] = [];
    let sceneExpected = 0;
    let sceneHits = 0;
    for (const { truth, rgb } of photos) {
      if (!truth.scenes) continue;
      const results = (await run(ctx, sceneHandler, rgb)).results as Item[];
      const answered = new Set(results.map((r) => r.puid.replace(/^scene\./, '')));
      const hit = truth.scenes.filter((s) => answered.has(s));
      sceneExpected += truth.scenes.length;
      sceneHits += hit.length;
      sceneRows.push([truth.file, truth.scenes.join(', '), fmt(results, 5), `${hit.length}/${truth.scenes.length}`]);
    }
    console.log('### Scenes (_0000039)\n');
    printTable(['photo', 'expected', 'answered', 'hits'], sceneRows);
    console.log(`Scenes: ${sceneHits}/${sceneExpected} expected scene labels answered (hit rate ${(sceneHits / Math.max(1, sceneExpected)).toFixed(3)}).\n`);

    // (e) Tagging
    const tagRows: (string | number)[][] = [];
    for (const { truth, rgb } of photos.filter((p) => TAGGED.includes(p.truth.file))) {
      tagRows.push([truth.file, fmt((await run(ctx, taggingHandler, rgb, { count: '10' })).results as Item[], 10)]);
    }
    console.log('### General tagging (_0000159), count=10\n');
    printTable(['photo', 'tags'], tagRows);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
