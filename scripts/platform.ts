/**
 * Runs the whole platform on one machine: PostgreSQL (embedded, one database per region, unless
 * DATABASE_URL_<REGION> points elsewhere), the cn-east and ap-southeast backends, and the edge on workerd
 * (scripts/edge-server.ts) with its local D1 migrated, each child supervised (scripts/supervisor.ts). Used by
 * `npm start` and by the end-to-end tests. Start-up failures are StartupErrors: one line, cause and fix.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../region-backend/src/db/embedded-postgres.js';
import { serverEntryArgs } from '../region-backend/src/util/backend-build.js';
import { StartupError } from '../region-backend/src/util/startup-error.js';
import { checkPortsFree, claimDataDir } from './startup-checks.js';
import { Supervised } from './supervisor.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
const REGION_ENV = { 'cn-east': 'CN_EAST', 'ap-southeast': 'AP_SOUTHEAST' } as const;
type Region = keyof typeof REGION_ENV;
const REGIONS = Object.keys(REGION_ENV) as Region[];

export interface PlatformOptions {
  dataDir: string;
  edgePort: number;
  backendPorts: Record<Region, number>;
  allowPrivateUrls: boolean;
  /** Inherit child output (npm start) or keep it in log files under dataDir/logs (tests). */
  stdio: 'inherit' | 'logs';
  env?: NodeJS.ProcessEnv;
  log?: (message: string) => void;
  /**
   * Regions served by backends started elsewhere (several processes behind a load balancer): the edge forwards to
   * this URL, signed with the region's secret in `internalSecrets`, and no backend is started for the region.
   */
  externalBackends?: Partial<Record<Region, string>>;
}

export interface DevAccount {
  account_id: number;
  key_id: string;
  secret: string;
}

export interface Platform {
  edgeUrl: string;
  backendUrls: Record<Region, string>;
  databaseUrls: Record<Region, string>;
  internalSecrets: Record<Region, string>;
  adminToken: string;
  devAccount: DevAccount;
  /** Process ids of the supervised children and of the embedded PostgreSQL (for crash tests). */
  processes(): { edge: number | undefined; backends: Record<Region, number | undefined>; postgres: number | undefined };
  /** Stops (SIGTERM) or kills (SIGKILL) one backend, then starts it again with the same settings. */
  restartBackend(region: Region, signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

interface Secrets {
  adminToken: string;
  internal: Record<Region, string>;
  /** AES-GCM key of access-key secrets in the edge's D1 (32 bytes, base64). */
  secretsMasterKey: string;
}

function loadSecrets(dataDir: string): Secrets {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Secrets;
    if (saved.secretsMasterKey) return saved;
    // Created before secrets were encrypted at rest: add the master key once, keep everything else.
    const upgraded = { ...saved, secretsMasterKey: randomBytes(32).toString('base64') };
    writeFileSync(file, JSON.stringify(upgraded, null, 2), { mode: 0o600 });
    return upgraded;
  }
  const secrets: Secrets = {
    adminToken: randomBytes(24).toString('hex'),
    internal: { 'cn-east': randomBytes(32).toString('hex'), 'ap-southeast': randomBytes(32).toString('hex') },
    secretsMasterKey: randomBytes(32).toString('base64'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  writeFileSync(path.join(dataDir, 'admin-token'), secrets.adminToken, { mode: 0o600 });
  return secrets;
}

async function waitFor(url: string, init: RequestInit, what: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.signalCode ?? `code ${child.exitCode}`}) before it was ready`);
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000}s (${url})`);
}

/** A start-up failure of a supervised child, in one line: its own last line says why (the backend prints cause and fix). */
async function startOrExplain(child: Supervised, what: string): Promise<void> {
  try {
    await child.start();
  } catch (err) {
    if (err instanceof StartupError) throw err;
    const last = child.lastLine();
    throw new StartupError(`${what} did not start: ${last ?? (err as Error).message}`);
  }
}

export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const log = options.log ?? (() => {});
  // Nothing downloads at run time: no metrics, and no fetch of the `Request.cf` sample from workers.cloudflare.com.
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' };
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const claim = await claimDataDir(dataDir, log);
  const children: Supervised[] = [];
  let postgres: EmbeddedPostgresHandle | null = null;
  const stopAll = async () => {
    for (const child of [...children].reverse()) await child.stop();
    for (const child of children) child.close();
    await postgres?.stop();
    claim.release();
  };
  try {
    const external = options.externalBackends ?? {};
    const local = REGIONS.filter((r) => !external[r]);
    await checkPortsFree([
      { port: options.edgePort, variable: 'IRIS_EDGE_PORT', what: 'the edge' },
      ...local.map((r) => ({ port: options.backendPorts[r], variable: `IRIS_BACKEND_PORT_${REGION_ENV[r]}`, what: `backend ${r}` })),
    ]);
    const secrets = loadSecrets(dataDir);
    const graceMs = Number(env.IRIS_STOP_GRACE_SECONDS ?? 30) * 1000;
    const supervised = (name: string, command: string, args: string[], childEnv: NodeJS.ProcessEnv, ready: (child: ChildProcess) => Promise<void>) => {
      const child = new Supervised({
        name, command, args, cwd: ROOT, env: childEnv, stdio: options.stdio, logsDir: path.join(dataDir, 'logs'), log, graceMs,
        ready: async (started) => {
          await ready(started);
          claim.recordChildren(children.map((c) => ({ name: c.name, pid: c.pid })));
        },
      });
      children.push(child);
      return child;
    };

    const backendUrls = {} as Record<Region, string>;
    for (const region of REGIONS) backendUrls[region] = external[region] ?? `http://127.0.0.1:${options.backendPorts[region]}`;

    // The edge needs only its D1 and the backends' addresses (its health answers while a region is down): it is
    // migrated and started beside PostgreSQL and the backends. Children are stopped in reverse order of
    // creation, so the backends' are made first and the edge still stops before them.
    const backends = {} as Partial<Record<Region, Supervised>>;
    const databaseUrls = {} as Record<Region, string>;
    // Each backend's environment; its DATABASE_URL is set once PostgreSQL is up, before the backend starts.
    const backendEnvs = {} as Record<Region, NodeJS.ProcessEnv>;
    for (const region of local) {
      const port = options.backendPorts[region];
      backendEnvs[region] = {
        ...env,
        IRIS_REGION: region,
        PORT: String(port),
        HOST: '127.0.0.1',
        // Prometheus metrics on loopback, beside the API port (docs/observability.md); an explicit value wins.
        IRIS_METRICS_PORT: env.IRIS_METRICS_PORT ?? (port + 1000 <= 65535 ? String(port + 1000) : 'off'),
        INTERNAL_SECRET: secrets.internal[region],
        IRIS_DATA_DIR: dataDir,
        IRIS_ALLOW_PRIVATE_URLS: options.allowPrivateUrls ? '1' : '0',
        // Webhook endpoints on loopback over http, for local development and tests (private ranges stay refused).
        IRIS_WEBHOOK_ALLOW_LOOPBACK: env.IRIS_WEBHOOK_ALLOW_LOOPBACK ?? (options.allowPrivateUrls ? '1' : '0'),
        IRIS_PUBLIC_EDGE_URL: `http://127.0.0.1:${options.edgePort}`,
        // glibc's malloc gives each busy thread an arena of its own; with inference, decoder and libvips threads
        // the freed memory stays scattered over them and resident memory creeps up (docs/configuration.md).
        MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2',
      };
      backends[region] = supervised(`backend-${region}`, process.execPath, serverEntryArgs('region-backend'), backendEnvs[region], async (child) => {
        await waitFor(`${backendUrls[region]}/healthz`, {}, `backend ${region}`, child);
        log(`backend ${region} listening on ${backendUrls[region]}`);
      });
    }

    const wrangler = path.join(ROOT, 'node_modules', '.bin', 'wrangler');
    const persist = path.join(dataDir, 'wrangler');
    // Secrets reach wrangler through a file only this user can read, never through its command line.
    const devVars = writeDevVars(path.join(dataDir, 'edge'), {
      ADMIN_TOKEN: secrets.adminToken,
      BACKEND_URL_CN_EAST: backendUrls['cn-east'],
      BACKEND_URL_AP_SOUTHEAST: backendUrls['ap-southeast'],
      INTERNAL_SECRET_CN_EAST: secrets.internal['cn-east'],
      INTERNAL_SECRET_AP_SOUTHEAST: secrets.internal['ap-southeast'],
      SECRETS_MASTER_KEY: secrets.secretsMasterKey,
    });
    const edgeArgs = ['--import', 'tsx', 'scripts/edge-server.ts', '--config', 'wrangler.toml', '--env-file', devVars, '--ip', '127.0.0.1', '--port', String(options.edgePort), '--persist-to', persist];
    const edgeUrl = `http://127.0.0.1:${options.edgePort}`;
    const adminHeaders = { authorization: `Bearer ${secrets.adminToken}`, 'content-type': 'application/json' };
    const edge = supervised('edge', process.execPath, edgeArgs, env, async (child) => {
      await waitFor(`${edgeUrl}/admin/health`, { headers: adminHeaders }, 'edge', child);
      log(`edge listening on ${edgeUrl}`);
    });

    const startEdge = async () => {
      log('applying edge D1 migrations');
      await migrateEdge(wrangler, persist, env);
      await startOrExplain(edge, 'the edge (workerd)');
    };
    const startBackends = async () => {
      for (const region of REGIONS) {
        const external = env[`DATABASE_URL_${REGION_ENV[region]}`];
        if (external) {
          databaseUrls[region] = external;
          continue;
        }
        if (!postgres) {
          log('starting embedded PostgreSQL');
          postgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), log: (line) => log(line) });
        }
        const database = `iris_${region.replace('-', '_')}`;
        await postgres.ensureDatabase(database);
        databaseUrls[region] = postgres.connectionString(database);
      }
      for (const region of local) backendEnvs[region].DATABASE_URL = databaseUrls[region];
      await Promise.all(local.map((r) => startOrExplain(backends[r]!, `backend ${r}`)));
    };
    // Both settle before a failure is answered, so nothing is started after the platform was stopped.
    const started = await Promise.allSettled([startBackends(), startEdge()]);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;

    const devAccount = await ensureDevAccount(edgeUrl, adminHeaders, dataDir, env);

    return {
      edgeUrl,
      backendUrls,
      databaseUrls,
      internalSecrets: secrets.internal,
      adminToken: secrets.adminToken,
      devAccount,
      processes: () => ({ edge: edge.pid, backends: { 'cn-east': backends['cn-east']?.pid, 'ap-southeast': backends['ap-southeast']?.pid }, postgres: postgres?.pid }),
      restartBackend: async (region, signal = 'SIGTERM') => {
        const backend = backends[region];
        if (!backend) throw new Error(`backend ${region} runs outside the platform`);
        await backend.stop(signal);
        await backend.start();
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll().catch(() => {});
    throw err;
  }
}

/** Writes `.dev.vars` (dotenv syntax) readable by this user only; returns its path. */
function writeDevVars(dir: string, vars: Record<string, string>): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, '.dev.vars');
  const body = Object.entries(vars).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join('\n');
  writeFileSync(file, `${body}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

async function migrateEdge(wrangler: string, persist: string, env: NodeJS.ProcessEnv): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const migrate = spawn(wrangler, ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist, '--config', 'wrangler.toml'], { cwd: ROOT, env: { ...env, CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    migrate.stdout?.on('data', (d) => (output += d));
    migrate.stderr?.on('data', (d) => (output += d));
    migrate.on('error', (err) => reject(new StartupError(`wrangler could not be started (${err.message}): run \`npm install\` first`)));
    migrate.on('exit', (code) => {
      if (code === 0) return resolve();
      const reason = output.split('\n').map((l) => l.trim()).filter((l) => /error|✘/i.test(l)).slice(-1)[0] ?? `exit code ${code}`;
      reject(new StartupError(`edge D1 migrations failed (${reason}): look at edge/migrations, or remove ${persist} to start the local D1 afresh`));
    });
  });
}

/** A new access key id and secret, of the shapes the edge accepts when given them. */
export function newAccessKey(): { key_id: string; secret: string } {
  return { key_id: `iris${randomBytes(8).toString('hex')}`, secret: randomBytes(20).toString('base64url') };
}

/** The development account: its key comes from IRIS_DEV_KEY_ID / IRIS_DEV_KEY_SECRET, or is generated once. */
async function ensureDevAccount(edgeUrl: string, headers: Record<string, string>, dataDir: string, env: NodeJS.ProcessEnv): Promise<DevAccount> {
  const file = path.join(dataDir, 'dev-account.json');
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevAccount) : null;
  const fresh = newAccessKey();
  const keyId = env.IRIS_DEV_KEY_ID ?? saved?.key_id ?? fresh.key_id;
  const secret = env.IRIS_DEV_KEY_SECRET ?? saved?.secret ?? fresh.secret;
  const call = async (method: string, url: string, body?: unknown, accepted: number[] = []) => {
    const res = await fetch(`${edgeUrl}${url}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (!res.ok && !accepted.includes(res.status)) throw new Error(`admin ${method} ${url} failed: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  let accountId = saved?.account_id;
  if (accountId === undefined) {
    const account = await call('POST', '/admin/accounts', { name: 'development' });
    accountId = Number(account.id);
  }
  // 409: the key exists from an earlier start (the edge never shows a secret again; this file keeps it).
  await call('POST', `/admin/accounts/${accountId}/keys`, { key_id: keyId, secret }, [409]);
  const devAccount: DevAccount = { account_id: accountId, key_id: keyId, secret };
  writeFileSync(file, JSON.stringify(devAccount, null, 2), { mode: 0o600 });
  return devAccount;
}
