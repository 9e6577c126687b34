import { runSuites } from './run-suites.js';
await runSuites('.eval.ts', process.argv.slice(2));
