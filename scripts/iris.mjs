#!/usr/bin/env node
// `iris` inside the repository (package.json "bin", tests): the CLI's TypeScript run through tsx. The
// installable package is cli/ (`npm pack -w cli`), built to JavaScript.
import { register } from 'tsx/esm/api';

register();
await import('../cli/src/main.ts');
