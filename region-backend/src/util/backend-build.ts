import path from 'node:path';

/**
 * IRIS_BACKEND_BUILT=1: run the backend from its build (`npm run build`, what deploy/ runs) rather than its
 * TypeScript sources. Under tsx every module of a process and of each of its worker threads passes through the
 * loader hooks, which roughly doubles the CPU time of a backend's start and of each thread's first models.
 * `npm test` builds first and sets it.
 */
export function runsBuild(): boolean {
  return process.env.IRIS_BACKEND_BUILT === '1';
}

/** The Node.js arguments that start a region backend (server.ts), with paths under `dir` (the region-backend folder). */
export function serverEntryArgs(dir = '.'): string[] {
  return runsBuild() ? ['--conditions=iris-dist', path.join(dir, 'dist', 'server.js')] : ['--import', 'tsx', path.join(dir, 'src', 'server.ts')];
}
