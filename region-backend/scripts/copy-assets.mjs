// After `tsc -p tsconfig.build.json`: copies what the compiled backend reads beside its code (SQL migrations,
// the embedding's whitening matrix, the worker bootstrap) from src/ to dist/. Test fixtures stay behind.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const copy = (dir) => {
  for (const entry of readdirSync(path.join(root, 'src', dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'fixtures') copy(relative);
    } else if (!entry.name.endsWith('.ts')) {
      cpSync(path.join(root, 'src', relative), path.join(root, 'dist', relative));
    }
  }
};
copy('');
