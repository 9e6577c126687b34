/**
 * Which face belongs to which person: a face belongs to a person box when its centre lies inside the box's
 * upper half and it is not wider than the box. When several boxes qualify the smallest wins (the nearest,
 * least ambiguous person); each person keeps its best-scoring face.
 */
import type { Box } from '../../../vision/detect/detection.js';

export interface Scored {
  box: Box;
  score: number;
}

/** For each person, the index of its face in `faces`, or -1. */
export function assignFaces(persons: readonly Scored[], faces: readonly Scored[]): number[] {
  const owner = persons.map(() => -1);
  const order = faces.map((_, i) => i).sort((a, b) => faces[b]!.score - faces[a]!.score);
  for (const fi of order) {
    const f = faces[fi]!.box;
    const cx = f[0] + f[2] / 2;
    const cy = f[1] + f[3] / 2;
    let best = -1;
    let bestArea = Infinity;
    persons.forEach((p, pi) => {
      const [x, y, w, h] = p.box;
      if (owner[pi] !== -1) return;
      if (cx < x || cx > x + w || cy < y || cy > y + h / 2 || f[2] > w * 1.1) return;
      const area = w * h;
      if (area < bestArea) {
        best = pi;
        bestArea = area;
      }
    });
    if (best >= 0) owner[best] = fi;
  }
  return owner;
}

/** The head region of a person box, where a second, enlarged face search looks (top 40%, slightly widened). */
export function headRegion(box: Box): Box {
  const [x, y, w, h] = box;
  const grow = w * 0.1;
  const left = Math.max(0, x - grow);
  const top = Math.max(0, y - h * 0.05);
  return [left, top, Math.min(1, x + w + grow) - left, Math.min(1, y + h * 0.4) - top];
}
