/**
 * The edge Worker on workerd, as `npm start` runs it: the bundle `wrangler deploy` would upload (built with
 * `wrangler deploy --dry-run`), with the bindings wrangler.toml declares (D1, the rate limiter, the console's
 * static assets, vars) and the local D1 that `wrangler d1 migrations apply --local --persist-to` writes, served
 * by Miniflare (one workerd process). Unlike `wrangler dev` there is no development proxy Worker and no
 * inspector in front of it: under sustained traffic that proxy's workerd grew without bound (docs/edge.md,
 * "Local runtime").
 *
 *   tsx scripts/edge-server.ts --config wrangler.toml --env-file <file> --ip 127.0.0.1 --port 8787 --persist-to <dir>
 *
 * Values from `--env-file` (dotenv syntax: secrets) and `--var NAME:value` override wrangler.toml's vars.
 * `--inspector-port <port>` opens workerd's inspector (Chrome DevTools protocol, every isolate) on localhost: a
 * privileged interface (it runs code inside the Worker), for diagnosis and the edge's memory test only.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, parseEnv } from 'node:util';
import { Log, LogLevel, Miniflare, Runtime } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { withV8Flags } from './workerd-v8-flags.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const WRANGLER = path.join(ROOT, 'node_modules', '.bin', 'wrangler');

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'wrangler.toml' },
    'env-file': { type: 'string' },
    var: { type: 'string', multiple: true, default: [] },
    ip: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8787' },
    'persist-to': { type: 'string' },
    'inspector-port': { type: 'string' },
  },
});
const persist = values['persist-to'];
if (!persist) throw new Error('--persist-to is required (the local D1 folder)');
const config = path.resolve(ROOT, values.config);

/** The Worker bundled exactly as for deploy (wrangler's esbuild, wrangler.toml's rules). */
async function bundle(outdir: string): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const build = spawn(WRANGLER, ['deploy', '--dry-run', '--outdir', outdir, '--config', config], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    build.stderr.on('data', (d) => (errors += d));
    build.on('error', reject);
    build.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bundling the edge failed (wrangler deploy --dry-run exited ${code}): ${errors.slice(-2000)}`))));
  });
  // Named after the Worker's main module (index.js for the edge).
  const script = readdirSync(outdir).find((file) => file.endsWith('.js'));
  if (!script) throw new Error(`bundling the edge wrote no script into ${outdir}`);
  return path.join(outdir, script);
}

function overrides(): Record<string, string> {
  const vars: Record<string, string> = {};
  if (values['env-file']) Object.assign(vars, parseEnv(readFileSync(values['env-file'], 'utf8')));
  for (const pair of values.var) {
    const at = pair.indexOf(':');
    if (at <= 0) throw new Error(`--var ${pair}: expected NAME:value`);
    vars[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return vars;
}

/**
 * V8 flags for workerd (docs/edge.md, "Local runtime"). With V8's defaults each isolate a call passes through
 * (Miniflare's entry Worker, the assets router and its helpers, the edge) let its young generation grow to 16 MB
 * semi-spaces and its old generation to hundreds of MB before a first full collection: the process grew by ~500 MB
 * before levelling off. These make V8 collect early; neither caps a heap, so no call fails that did not before.
 */
const DEFAULT_V8_FLAGS = '--max-semi-space-size=1 --initial-old-space-size=8';
const v8Flags = (process.env.IRIS_EDGE_V8_FLAGS ?? DEFAULT_V8_FLAGS).split(/\s+/).filter(Boolean);
// Miniflare never fills workerd's `v8Flags`: set them in the configuration it sends to workerd.
const updateConfig = Runtime.prototype.updateConfig;
Runtime.prototype.updateConfig = function (config, ...rest) {
  return updateConfig.call(this, withV8Flags(config, v8Flags), ...rest);
};

// One bundle folder per port: several edges may share one local D1 folder.
const script = await bundle(path.join(persist, 'bundle', values.port));
const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
const miniflare = new Miniflare({
  ...workerOptions,
  name: 'iris-edge',
  modules: true,
  scriptPath: script,
  modulesRoot: path.dirname(script),
  bindings: { ...workerOptions.bindings, ...overrides() },
  defaultPersistRoot: path.join(path.resolve(persist), 'v3'),
  host: values.ip,
  port: Number(values.port),
  logRequests: false,
  // No Cloudflare request metadata locally (Miniflare would otherwise fetch it from the internet).
  cf: false,
  log: new Log(LogLevel.WARN),
  ...(values['inspector-port'] ? { inspectorPort: Number(values['inspector-port']) } : {}),
});
await miniflare.ready;
console.log(`edge listening on http://${values.ip}:${values.port}`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void miniflare.dispose().finally(() => process.exit(0));
  });
}
