/**
 * Prints what the console's first load costs: every file index.html pulls in, raw, gzip -9 and brotli
 * (what a compressing CDN or proxy sends), as a Markdown table. Run after the build: `npm run size -w console`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const DIST = path.resolve(import.meta.dirname, '../dist/console');
const BUDGET_JS_GZIP = 200 * 1024;

export interface AssetSize {
  file: string;
  raw: number;
  gzip: number;
  brotli: number;
}

export function firstLoadAssets(dist = DIST): AssetSize[] {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const files = ['index.html', ...[...html.matchAll(/(?:src|href)="\/console\/([^"]+)"/g)].map((m) => m[1]!)];
  return files.map((file) => {
    const bytes = readFileSync(path.join(dist, file));
    return {
      file,
      raw: bytes.length,
      gzip: zlib.gzipSync(bytes, { level: 9 }).length,
      brotli: zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
}

const kb = (n: number) => (n / 1024).toFixed(1);

if (import.meta.url === `file://${process.argv[1]}`) {
  const assets = firstLoadAssets();
  console.log('| file | raw kB | gzip kB | brotli kB |\n|---|---|---|---|');
  for (const a of assets) console.log(`| ${a.file} | ${kb(a.raw)} | ${kb(a.gzip)} | ${kb(a.brotli)} |`);
  const js = assets.filter((a) => a.file.endsWith('.js')).reduce((sum, a) => sum + a.gzip, 0);
  console.log(`\nFirst-load JavaScript: ${kb(js)} kB gzip (budget ${kb(BUDGET_JS_GZIP)} kB). Command: npm run size -w console`);
  if (js > BUDGET_JS_GZIP) process.exitCode = 1;
}
