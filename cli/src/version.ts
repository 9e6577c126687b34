/** The CLI's version: its package's, found from this file up (the same in the repository and when installed). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function cliVersion(from = import.meta.dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@iris/cli' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
