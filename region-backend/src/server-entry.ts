import path from 'node:path';

/**
 * The Node.js arguments that start a region backend (server.ts), with paths under `dir` (the region-backend
 * folder, as seen from the child's working directory): its build (`npm run build`, what deploy/ runs) when
 * IRIS_BACKEND_BUILT=1, else its TypeScript sources under tsx. The build starts in about half the CPU time:
 * under tsx every module of the process and of each of its worker threads passes through the loader hooks.
 */
export function serverEntryArgs(dir = '.'): string[] {
  return process.env.IRIS_BACKEND_BUILT === '1'
    ? ['--conditions=iris-dist', path.join(dir, 'dist', 'server.js')]
    : ['--import', 'tsx', path.join(dir, 'src', 'server.ts')];
}
