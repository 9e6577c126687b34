import { runSuites } from './run-suites.js';
await runSuites('.bench.ts', process.argv.slice(2));
