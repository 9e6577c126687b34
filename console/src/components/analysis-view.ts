/**
 * Reads an analysis answer generically: boxes (any object with `box: [x, y, w, h]` as fractions — detections,
 * OCR lines, logos, garments), colour swatches (objects with `rgb` and `freq` or `percent`) and labels.
 */
import type { Overlay, Rect } from './image-canvas.js';

const PALETTE = ['#00e0a0', '#ff5fa2', '#4db8ff', '#ffb000', '#b28dff', '#ff6b3d'];

export interface Swatch {
  rgb: [number, number, number];
  share: number;
  name: string;
}

export interface Labelled {
  label: string;
  score: number | undefined;
}

type Json = Record<string, unknown>;

function isRect(value: unknown): value is Rect {
  return Array.isArray(value) && value.length === 4 && value.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= -0.01 && v <= 1.01);
}

function textOf(o: Json, lang: 'en' | 'zh'): string {
  const keys = lang === 'zh' ? ['item', 'type', 'label', 'name', 'tag', 'brand', 'value'] : ['item-en', 'type', 'label', 'name', 'tag', 'brand', 'value', 'item'];
  for (const k of keys) if (typeof o[k] === 'string' && o[k]) return o[k] as string;
  return '';
}

function walk(value: unknown, visit: (o: Json) => void, depth = 0): void {
  if (depth > 12 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value.slice(0, 2000)) walk(v, visit, depth + 1);
    return;
  }
  visit(value as Json);
  for (const v of Object.values(value)) walk(v, visit, depth + 1);
}

export function findBoxes(answer: unknown, lang: 'en' | 'zh'): Overlay[] {
  const found: Overlay[] = [];
  walk(answer, (o) => {
    if (isRect(o.box)) {
      const score = typeof o.score === 'number' && o.score > 0 ? ` ${o.score.toFixed(2)}` : '';
      found.push({ box: o.box, label: `${textOf(o, lang)}${score}`, colour: PALETTE[found.length % PALETTE.length]! });
    }
  });
  return found;
}

function rgbOf(value: unknown): [number, number, number] | null {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const nums = value.map(Number);
  return nums.every((n) => Number.isFinite(n) && n >= 0 && n <= 255) ? (nums as [number, number, number]) : null;
}

/** Swatch groups: each list of colours found in the answer (the palette, or one garment's colours). */
export function findSwatches(answer: unknown, lang: 'en' | 'zh'): Swatch[][] {
  const groups: Swatch[][] = [];
  walk(answer, (o) => {
    for (const v of Object.values(o)) {
      if (!Array.isArray(v)) continue;
      const swatches = v.flatMap((c): Swatch[] => {
        if (!c || typeof c !== 'object') return [];
        const item = c as Json;
        const rgb = rgbOf(item.rgb);
        const share = Number(item.freq ?? item.percent);
        if (!rgb || !Number.isFinite(share)) return [];
        const name = [lang === 'zh' ? item['basic-cn'] : item['basic-en'], item.w3c, item['w3c-en'], item.color, item.hex].find((x) => typeof x === 'string' && x) as string | undefined;
        return [{ rgb, share, name: name ?? `rgb(${rgb.join(', ')})` }];
      });
      if (swatches.length) groups.push(swatches);
    }
  });
  return groups;
}

/** Labels with scores that are not boxes (classification results, custom classifiers). */
export function findLabels(answer: unknown, lang: 'en' | 'zh'): Labelled[] {
  const found: Labelled[] = [];
  walk(answer, (o) => {
    if (isRect(o.box) || rgbOf(o.rgb)) return;
    const label = textOf(o, lang);
    const score = typeof o.score === 'number' ? o.score : typeof o.probability === 'number' ? o.probability : typeof o.confidence === 'number' ? o.confidence : undefined;
    if (label && score !== undefined) found.push({ label, score });
  });
  return found;
}

export interface FashionItem {
  name: string;
  textures: string[];
  colours: Swatch[];
}

/** Garments of the fashion analysis (`item`, `textures`, `colors` per result; both languages are present). */
export function findFashion(answer: unknown, lang: 'en' | 'zh'): FashionItem[] {
  const found: FashionItem[] = [];
  walk(answer, (o) => {
    const name = lang === 'zh' ? o.item : (o['item-en'] ?? o.item);
    if (typeof name !== 'string') return;
    const textures = (lang === 'zh' ? o.textures : (o['textures-en'] ?? o.textures)) as unknown;
    found.push({
      name,
      textures: Array.isArray(textures) ? textures.filter((x): x is string => typeof x === 'string') : [],
      colours: findSwatches({ colors: o.colors }, lang)[0] ?? [],
    });
  });
  return found;
}
