/**
 * `npm run eval -- ocr`: text recognition (_0000154) and receipt fields (_0000143), through the real handlers
 * and a real inference pool.
 *
 * (a) Scene text: the six `text/scenetext0N.jpg` photos of `opencv-doc`, ground truth written down by hand;
 *     character error rate (CER) of all recognised lines in reading order against the truth (case folded).
 * (b) Rendered card slips, Chinese and English, generated at run time with several fonts (Debian font
 *     packages), sizes, a few degrees of rotation, blur, noise and JPEG compression: CER of the text and
 *     accuracy of each of the four receipt fields (exact value, or null when the slip has none).
 *
 * Rule lines (dashes) are not text and not part of the truth.
 * CER = edit distance / truth length, after NFKC (full-width punctuation → ASCII) and collapsing white space;
 * "CER w/o spaces" ignores spaces altogether (the Chinese recogniser often drops spaces between Latin words).
 * IRIS_EVAL_OCR_SLIPS sets the number of slips per language (default 12).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { median, percentile, printTable } from '../../scripts/table.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { ocrTextHandler } from '../src/domains/analysis/ocr/ocr-text.handler.js';
import { ocrReceiptHandler } from '../src/domains/analysis/ocr/ocr-receipt.handler.js';
import { resolveManifest } from '../src/vision/runtime/model-config.js';
import type { AnalysisContext, AnalysisHandler } from '../src/domains/analysis/analysis-registry.js';
import { encode, makeReceipt, renderLines, type ReceiptTruth } from '../test/fixtures/ocr/render-receipt.js';
import { seededRandom } from '../src/util/seeded-random.js';
import { RECEIPT_FIELD_TYPES } from '@iris/shared';
import { debianPackage, isMissing } from './lib/debian-datasets.js';
import { ocrFonts } from './lib/ocr-fonts.js';

/** What each photo says, lines in reading order (top to bottom, left to right). */
const SCENE_TRUTH: Record<string, string[]> = {
  'scenetext01.jpg': ['NOTICE', 'DOUBLE', 'PARKING', 'PROHIBITED', 'AT ALL TIMES', 'The Washington Post'],
  'scenetext02.jpg': ['Sports Centre', 'Wivenhoe Park', 'Conference Centre', 'Car Parks'],
  'scenetext03.jpg': ['the copy centre'],
  'scenetext04.jpg': ['Gmmco', 'GM 125'],
  'scenetext05.jpg': ['NO PARKING', 'NO PARKING'],
  'scenetext06.jpg': ['priory galleries at the ship', 'priory galleries at the ship'],
};

function editDistance(a: string[], b: string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

const norm = (s: string, fold: boolean) => {
  const t = s.normalize('NFKC').replace(/\s+/g, ' ').trim();
  return fold ? t.toLowerCase() : t;
};

/** Edit operations and truth length, with and without spaces. */
function cer(predicted: string[], truth: string[], fold: boolean): { errors: number; length: number; errorsNoSpace: number; lengthNoSpace: number } {
  const p = norm(predicted.join(' '), fold);
  const t = norm(truth.join(' '), fold);
  const ps = p.replace(/ /g, '');
  const ts = t.replace(/ /g, '');
  return { errors: editDistance([...p], [...t]), length: [...t].length, errorsNoSpace: editDistance([...ps], [...ts]), lengthNoSpace: [...ts].length };
}

async function decode(bytes: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(bytes).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

async function run_(handler: AnalysisHandler<'detect'>, ctx: AnalysisContext, rgb: RgbImage, lang: 'en' | 'zh') {
  const t0 = performance.now();
  const out = await handler.run(ctx, { rgb, encoded: new Uint8Array(), params: {}, lang });
  return { items: out.boxes_detected as { type: string; value?: string | null }[], ms: performance.now() - t0 };
}

interface Tally {
  errors: number;
  length: number;
  errorsNoSpace: number;
  lengthNoSpace: number;
  ms: number[];
}
const tally = (): Tally => ({ errors: 0, length: 0, errorsNoSpace: 0, lengthNoSpace: 0, ms: [] });
function add(t: Tally, c: ReturnType<typeof cer>, ms: number): void {
  t.errors += c.errors;
  t.length += c.length;
  t.errorsNoSpace += c.errorsNoSpace;
  t.lengthNoSpace += c.lengthNoSpace;
  t.ms.push(ms);
}

async function sceneText(ctx: AnalysisContext): Promise<Tally | null> {
  const pkg = debianPackage('opencv-doc');
  if (isMissing(pkg)) {
    console.log(`opencv-doc unavailable (${pkg.reason}): scene text skipped\n`);
    return null;
  }
  const dir = path.join(pkg.root, 'usr/share/doc/opencv-doc/examples/text');
  const rows: (string | number)[][] = [];
  const total = tally();
  for (const [file, truth] of Object.entries(SCENE_TRUTH)) {
    const rgb = await decode(readFileSync(path.join(dir, file)));
    const { items, ms } = await run_(ocrTextHandler, ctx, rgb, 'en');
    const lines = items.map((i) => i.type);
    const c = cer(lines, truth, true);
    add(total, c, ms);
    rows.push([file, truth.join(' / '), lines.join(' / '), c.errors / c.length, c.errorsNoSpace / c.lengthNoSpace, Math.round(ms)]);
  }
  rows.push(['all', '', '', total.errors / total.length, total.errorsNoSpace / total.lengthNoSpace, Math.round(median(total.ms))]);
  console.log('### Scene text (opencv-doc)\n');
  printTable(['photo', 'truth', 'recognised', 'CER', 'CER w/o spaces', 'ms'], rows);
  return total;
}

interface SlipResult {
  text: Tally;
  fields: Record<string, { right: number; total: number }>;
  allRight: number;
  count: number;
  failures: string[];
}

async function slips(ctx: AnalysisContext, lang: 'zh' | 'en', count: number): Promise<SlipResult | null> {
  const fonts = ocrFonts();
  const faces = lang === 'zh' ? fonts.cjk : [...fonts.latin, ...fonts.cjk];
  if (!faces.length) {
    console.log(`no ${lang === 'zh' ? 'CJK' : 'Latin'} fonts available: ${lang} slips skipped\n`);
    return null;
  }
  const result: SlipResult = {
    text: tally(),
    fields: Object.fromEntries(RECEIPT_FIELD_TYPES.map((t) => [t, { right: 0, total: 0 }])),
    allRight: 0,
    count: 0,
    failures: [],
  };
  for (let i = 0; i < count; i++) {
    const doc = makeReceipt(100 + i, lang);
    const r = seededRandom(1000 + i + (lang === 'zh' ? 0 : 500));
    // Degradations grow with the index: the first slips are clean scans, the last ones poor photos.
    const level = count > 1 ? i / (count - 1) : 0;
    const style = {
      font: faces[i % faces.length]!,
      size: 16 + Math.floor(r() * 9),
      angle: (r() * 2 - 1) * 4 * level,
      blur: 1.2 * level * r(),
      noise: 14 * level,
      ink: Math.round(20 + 70 * level * r()),
      paper: Math.round(250 - 20 * level * r()),
      seed: i + 1,
    };
    const jpeg = await encode(await renderLines(doc.lines, style), { jpeg: Math.round(92 - 35 * level) });
    const rgb = await decode(jpeg);
    const text = await run_(ocrTextHandler, ctx, rgb, lang);
    const textCer = cer(text.items.map((it) => it.type), doc.lines.filter((l) => /[\p{L}\p{N}]/u.test(l)), false);
    add(result.text, textCer, text.ms);
    if (process.env.IRIS_EVAL_OCR_VERBOSE) {
      console.log(`${lang} #${i} ${style.font.family} ${style.size}px level ${level.toFixed(2)}: CER ${(textCer.errors / textCer.length).toFixed(3)}`);
      for (const it of text.items) console.log(`    ${it.type}`);
    }
    const fields = await run_(ocrReceiptHandler, ctx, rgb, lang);
    let all = true;
    for (const type of RECEIPT_FIELD_TYPES) {
      const got = fields.items.find((it) => it.type === type)?.value ?? null;
      const want = doc.fields[type as keyof ReceiptTruth];
      const f = result.fields[type]!;
      f.total++;
      if (got === want) f.right++;
      else {
        all = false;
        result.failures.push(`${lang} #${i} (${style.font.family} ${style.size}px, level ${level.toFixed(2)}): ${type} = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
    }
    if (all) result.allRight++;
    result.count++;
  }
  return result;
}

export default async function run(): Promise<void> {
  const det = resolveManifest('ocr-det');
  const rec = resolveManifest('ocr-rec');
  console.log(`Detector ${path.basename(det.file)} (${JSON.stringify(det.output)}), recogniser ${path.basename(rec.file)}.\n`);
  const pool = new InferencePool();
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const ctx: AnalysisContext = { pool };
    // Warm the models on every thread so the first timings are not load times.
    const warm = await decode(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#fff' } }).png().toBuffer());
    await Promise.all(Array.from({ length: pool.size * 2 }, () => run_(ocrTextHandler, ctx, warm, 'en')));
    await sceneText(ctx);
    const count = Number(process.env.IRIS_EVAL_OCR_SLIPS ?? 12);
    const rows: (string | number)[][] = [];
    const failures: string[] = [];
    for (const lang of ['zh', 'en'] as const) {
      const r = await slips(ctx, lang, count);
      if (!r) continue;
      failures.push(...r.failures);
      rows.push([
        lang === 'zh' ? 'Chinese slips' : 'English slips',
        r.count,
        r.text.errors / r.text.length,
        r.text.errorsNoSpace / r.text.lengthNoSpace,
        ...RECEIPT_FIELD_TYPES.map((t) => r.fields[t]!.right / r.fields[t]!.total),
        r.allRight / r.count,
        Math.round(median(r.text.ms)),
        Math.round(percentile(r.text.ms, 90)),
      ]);
    }
    console.log('### Rendered card slips (fonts, rotation ≤ 4°, blur, noise, JPEG)\n');
    printTable(['set', 'slips', 'CER', 'CER w/o spaces', ...RECEIPT_FIELD_TYPES, 'all four', 'text ms p50', 'text ms p90'], rows);
    if (failures.length) console.log(`Field misses:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
