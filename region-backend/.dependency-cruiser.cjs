/* global module */
/**
 * The backend's layers (docs/architecture.md "Layers"), checked by `npm run lint`:
 *
 *   images/  ←  vision/runtime (+ vision/convert)  ←  vision/*  ←  inference/  ←  domains/, http/, plugins/, app
 *
 * A layer imports only layers to its left (and util/). Model code in vision/ runs inside worker threads: it
 * never reaches the pool, PostgreSQL, Fastify or a domain. Test files may reach across (a test of a worker
 * algorithm may run it through the pool), production files may not, and nothing in src/ may form a cycle.
 */
const SRC = '^src/';
const TEST_FILE = '\\.test\\.ts$';
const SERVER_PACKAGES = 'node_modules/(@types/)?(pg|pg-boss|fastify|fastify-plugin|@fastify/[^/]+|fastify-type-provider-zod)/';
const ABOVE_INFERENCE = '^src/(domains|http|plugins|jobs|observability|db|vectors)/|^src/(app|server|config|threadpool)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules of the backend must not import each other in a circle (type-only imports count too).',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'src-not-test-support',
      severity: 'error',
      comment: 'Production code does not import test support, fixtures or generators (region-backend/test/).',
      from: { path: SRC, pathNot: TEST_FILE },
      to: { path: '^test/' },
    },
    {
      name: 'images-is-the-bottom',
      severity: 'error',
      comment: 'images/ (decoding, fetching, blobs, the one pixel type) sits below every ML layer.',
      from: { path: '^src/images/', pathNot: TEST_FILE },
      to: { path: '^src/(vision|inference)/' },
    },
    {
      name: 'vision-runtime-below-algorithms',
      severity: 'error',
      comment: 'vision/runtime and vision/convert (sessions, manifests, conversion) know no algorithm of vision/*.',
      from: { path: '^src/vision/(runtime|convert)/', pathNot: TEST_FILE },
      to: { path: '^src/vision/', pathNot: '^src/vision/(runtime|convert)/' },
    },
    {
      name: 'vision-below-inference',
      severity: 'error',
      comment: 'vision/ runs inside worker threads: it never imports the pool, the tasks, a domain or the server.',
      from: { path: '^src/vision/', pathNot: TEST_FILE },
      to: { path: `^src/inference/|${ABOVE_INFERENCE}` },
    },
    {
      name: 'vision-no-server-packages',
      severity: 'error',
      comment: 'vision/ never imports PostgreSQL, pg-boss or Fastify.',
      from: { path: '^src/vision/' },
      to: { path: SERVER_PACKAGES },
    },
    {
      name: 'inference-below-domains',
      severity: 'error',
      comment: 'inference/ (the pool, the worker, the task map) knows no domain, route or plugin.',
      from: { path: '^src/inference/', pathNot: TEST_FILE },
      to: { path: ABOVE_INFERENCE },
    },
    {
      name: 'inference-no-server-packages',
      severity: 'error',
      comment: 'inference/ never imports PostgreSQL, pg-boss or Fastify.',
      from: { path: '^src/inference/', pathNot: TEST_FILE },
      to: { path: SERVER_PACKAGES },
    },
  ],
  options: {
    includeOnly: ['^src/', '^test/', 'node_modules/'],
    exclude: { path: '(^|/)dist/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
