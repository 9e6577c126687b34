/**
 * Fonts for rendering evaluation receipts and OCR test fixtures, from Debian font packages fetched into the
 * evaluation cache (never installed system-wide, never committed).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FontFace } from '../../test/fixtures/ocr/render-receipt.js';
import { debianPackage, isMissing } from './debian-datasets.js';

interface FontSource extends FontFace {
  pkg: string;
}

/** Fonts with Chinese glyphs (they also carry Latin ones). */
const CJK: FontSource[] = [
  { pkg: 'fonts-wqy-zenhei', file: 'usr/share/fonts/truetype/wqy/wqy-zenhei.ttc', family: 'WenQuanYi Zen Hei' },
  { pkg: 'fonts-wqy-microhei', file: 'usr/share/fonts/truetype/wqy/wqy-microhei.ttc', family: 'WenQuanYi Micro Hei' },
  { pkg: 'fonts-arphic-uming', file: 'usr/share/fonts/truetype/arphic/uming.ttc', family: 'AR PL UMing CN' },
  { pkg: 'fonts-arphic-ukai', file: 'usr/share/fonts/truetype/arphic/ukai.ttc', family: 'AR PL UKai CN' },
];

/** Latin-only fonts: monospace as most slip printers, plus proportional ones. */
const LATIN: FontSource[] = [
  { pkg: 'fonts-dejavu-core', file: 'usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf', family: 'DejaVu Sans Mono' },
  { pkg: 'fonts-dejavu-core', file: 'usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', family: 'DejaVu Sans' },
  { pkg: 'fonts-dejavu-core', file: 'usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', family: 'DejaVu Serif' },
  { pkg: 'fonts-liberation', file: 'usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf', family: 'Liberation Mono' },
];

function available(sources: FontSource[]): FontFace[] {
  const out: FontFace[] = [];
  for (const s of sources) {
    const pkg = debianPackage(s.pkg);
    if (isMissing(pkg)) continue;
    const file = path.join(pkg.root, s.file);
    if (existsSync(file)) out.push({ file, family: s.family });
  }
  return out;
}

export function ocrFonts(): { cjk: FontFace[]; latin: FontFace[] } {
  return { cjk: available(CJK), latin: available(LATIN) };
}
