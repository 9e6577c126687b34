/**
 * People detection v1.0 (_0000187): each person box gets `male`/`female` from the gender of the face inside it
 * and `adult`/`kid` from that face's age (adult from ADULT_AGE). Pipeline: person boxes (stage
 * `people-detector`, default the COCO detector) and faces (stage `face-detector`) in parallel; a second face
 * search in the enlarged head region of persons left without a face; gender and age per face (stage
 * `face-attributes`). A person whose face is not visible gets no label (gender and age are unknown), and a
 * face outside every person box (close-up portraits) is labelled on its own face box. Faces under
 * MIN_FACE_PIXELS wide count as not visible.
 */
import { labelIndex, PEOPLE_LABELS } from '@iris/shared';
import type { AnalysisHandler } from '../analysis-registry.js';
import type { Box } from '../../../vision/detect/detection.js';
import { DETECT_MIN_SIDE, OBJECT_MIN_SCORE } from './detect-limits.js';
import { assignFaces, headRegion, type Scored } from './face-assignment.js';
import { findFaces } from './face-search.js';
import { boxItem, detect, FACE_STAGE, faceAttributes, OBJECT_STAGE, sharedImage, type DetectBoxItem } from './vision-calls.js';

export const PEOPLE_STAGE = 'people-detector';
/** Age (years) from which a face counts as adult. */
export const ADULT_AGE = 18;
/**
 * Faces narrower than this (pixels of the analysed picture) are too blurred for gender and age: their person
 * stays unlabelled, as when no face is visible.
 */
export const MIN_FACE_PIXELS = 24;
/** People examined per picture (largest scores first); bounds the face-attribute work. */
const MAX_PEOPLE = 16;
const LABELS = labelIndex(PEOPLE_LABELS);

export const peopleHandler: AnalysisHandler<'detect'> = {
  serviceId: '_0000187',
  envelope: 'detect',
  minSide: DETECT_MIN_SIDE,
  async run(ctx, input) {
    const image = sharedImage(input.rgb);
    const [objects, found] = await Promise.all([
      detect(ctx, { stage: PEOPLE_STAGE, fallback: OBJECT_STAGE, image, minScore: OBJECT_MIN_SCORE }),
      findFaces(ctx, image),
    ]);
    const persons: Scored[] = objects.filter((d) => d.label === 'person').sort((a, b) => b.score - a.score).slice(0, MAX_PEOPLE);
    const faces: Scored[] = [...found];
    let owner = assignFaces(persons, faces);

    const faceless = persons.filter((_, i) => owner[i] === -1);
    if (faceless.length) {
      const extra = await detect(ctx, { stage: FACE_STAGE, image, regions: faceless.map((p) => headRegion(p.box)), regionMinSide: 320 });
      faces.push(...extra);
      owner = assignFaces(persons, faces);
    }

    const owned = new Set(owner.filter((i) => i >= 0));
    // Faces no person box claimed (portrait close-ups) stand for their person; duplicates from the second pass do not.
    const loose = found.filter((_, i) => !owned.has(i));
    const bigEnough = (face: Box) => face[2] * image.width >= MIN_FACE_PIXELS;
    const subjects: { box: Box; face: Box }[] = [
      ...persons.flatMap((p, i) => (owner[i]! >= 0 ? [{ box: p.box, face: faces[owner[i]!]!.box }] : [])),
      ...loose.map((f) => ({ box: f.box, face: f.box })),
    ].filter((s) => bigEnough(s.face));
    if (!subjects.length) return { boxes_detected: [] };

    const attrs = await faceAttributes(ctx, image, subjects.map((s) => s.face), ADULT_AGE);
    const items: DetectBoxItem[] = [];
    subjects.forEach((s, i) => {
      const a = attrs[i];
      if (!a) return;
      const gender = a.male >= 0.5 ? LABELS.get('male')! : LABELS.get('female')!;
      const age = a.adult >= 0.5 ? LABELS.get('adult')! : LABELS.get('kid')!;
      items.push(boxItem(s.box, gender, Math.max(a.male, 1 - a.male), input.lang));
      items.push(boxItem(s.box, age, Math.max(a.adult, 1 - a.adult), input.lang));
    });
    return { boxes_detected: items };
  },
};
