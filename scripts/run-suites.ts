/**
 * Runs every suite file matching a suffix (`.eval.ts` or `.bench.ts`) under the suite folders, in name
 * order, or only those whose name contains one of the given filters: `npm run bench -- vector`.
 * Each suite module exports `default async function run(): Promise<void>` and prints its own table.
 */
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const FOLDERS = ['region-backend/eval', 'region-backend/bench', 'edge/bench', 'test/bench', 'test/eval'];

export async function runSuites(suffix: '.eval.ts' | '.bench.ts', filters: string[]): Promise<void> {
  const files = FOLDERS.flatMap((folder) => {
    const dir = path.join(ROOT, folder);
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(suffix)).map((f) => path.join(dir, f)) : [];
  }).sort((a, b) => path.basename(a).localeCompare(path.basename(b)));
  const selected = filters.length ? files.filter((f) => filters.some((x) => path.basename(f).includes(x))) : files;
  if (!selected.length) throw new Error(`no ${suffix} suites match ${filters.join(', ') || '(all)'}`);
  const command = `npm run ${suffix === '.eval.ts' ? 'eval' : 'bench'}${filters.length ? ` -- ${filters.join(' ')}` : ''}`;
  console.log(`# ${command}  (${new Date().toISOString()}, ${process.version}, ${(await import('node:os')).availableParallelism()} cores)\n`);
  let failed = 0;
  for (const file of selected) {
    console.log(`## ${path.relative(ROOT, file)}\n`);
    try {
      const suite = (await import(pathToFileURL(file).href)) as { default: () => Promise<void> };
      await suite.default();
    } catch (err) {
      failed++;
      console.error(`suite ${path.basename(file)} failed:`, err);
    }
    console.log('');
  }
  if (failed) process.exitCode = 1;
}
