/* global console, process */
// Copies the API reference page's files (Swagger UI, from npm) into the Worker's static assets:
// console/dist/docs/ (the assets directory of wrangler.toml, shared with the web console under console/dist/console/). The page itself is answered by the Worker at /docs (edge/src/routes/openapi.routes.ts).
// Also copies edge/assets/_headers (security headers of the console and these files) to the assets' root.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const source = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const target = path.join(import.meta.dirname, '..', '..', 'console', 'dist', 'docs');
mkdirSync(target, { recursive: true });
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) copyFileSync(path.join(source, file), path.join(target, file));
copyFileSync(path.join(import.meta.dirname, '..', 'assets', '_headers'), path.join(target, '..', '_headers'));
console.log(`API reference assets copied to ${path.relative(process.cwd(), target)}`);
