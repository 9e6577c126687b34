/**
 * Runs the whole platform on one machine: PostgreSQL (embedded, one database per region, unless
 * DATABASE_URL_<REGION> points elsewhere), the cn-east and ap-southeast backends, and the edge under
 * `wrangler dev` with its local D1 migrated. Used by `npm start` and by the end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, freePort, type EmbeddedPostgresHandle } from '../region-backend/src/db/embedded-postgres.js';

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
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before it was ready`);
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

function spawnLogged(command: string, args: string[], env: NodeJS.ProcessEnv, options: PlatformOptions, name: string): ChildProcess {
  const logsDir = path.join(options.dataDir, 'logs');
  mkdirSync(logsDir, { recursive: true });
  const child = spawn(command, args, { cwd: ROOT, env, stdio: options.stdio === 'inherit' ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'], detached: false });
  if (options.stdio === 'logs') {
    const out = createWriteStream(path.join(logsDir, `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  }
  return child;
}

async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM', graceMs = 20_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const log = options.log ?? (() => {});
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, WRANGLER_SEND_METRICS: 'false' };
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const secrets = loadSecrets(dataDir);

  let postgres: EmbeddedPostgresHandle | null = null;
  const databaseUrls = {} as Record<Region, string>;
  for (const region of REGIONS) {
    const external = env[`DATABASE_URL_${REGION_ENV[region]}`];
    if (external) {
      databaseUrls[region] = external;
      continue;
    }
    if (!postgres) {
      log('starting embedded PostgreSQL');
      postgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: await freePort() });
    }
    const database = `iris_${region.replace('-', '_')}`;
    await postgres.ensureDatabase(database);
    databaseUrls[region] = postgres.connectionString(database);
  }

  const backends = {} as Record<Region, ChildProcess>;
  const backendUrls = {} as Record<Region, string>;
  const startBackend = async (region: Region): Promise<void> => {
    const port = options.backendPorts[region];
    backendUrls[region] = `http://127.0.0.1:${port}`;
    const child = spawnLogged(process.execPath, ['--import', 'tsx', 'region-backend/src/server.ts'], {
      ...env,
      IRIS_REGION: region,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrls[region],
      INTERNAL_SECRET: secrets.internal[region],
      IRIS_DATA_DIR: dataDir,
      IRIS_ALLOW_PRIVATE_URLS: options.allowPrivateUrls ? '1' : '0',
      IRIS_PUBLIC_EDGE_URL: `http://127.0.0.1:${options.edgePort}`,
    }, options, `backend-${region}`);
    backends[region] = child;
    await waitFor(`${backendUrls[region]}/healthz`, {}, `backend ${region}`, child);
    log(`backend ${region} listening on ${backendUrls[region]}`);
  };
  await Promise.all(REGIONS.map(startBackend));

  const wrangler = path.join(ROOT, 'node_modules', '.bin', 'wrangler');
  const persist = path.join(dataDir, 'wrangler');
  log('applying edge D1 migrations');
  await new Promise<void>((resolve, reject) => {
    const migrate = spawn(wrangler, ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist, '--config', 'wrangler.toml'], { cwd: ROOT, env: { ...env, CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    migrate.stdout?.on('data', (d) => (output += d));
    migrate.stderr?.on('data', (d) => (output += d));
    migrate.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`edge D1 migrations failed:\n${output}`))));
  });

  const vars: Record<string, string> = {
    ADMIN_TOKEN: secrets.adminToken,
    BACKEND_URL_CN_EAST: backendUrls['cn-east'],
    BACKEND_URL_AP_SOUTHEAST: backendUrls['ap-southeast'],
    INTERNAL_SECRET_CN_EAST: secrets.internal['cn-east'],
    INTERNAL_SECRET_AP_SOUTHEAST: secrets.internal['ap-southeast'],
    SECRETS_MASTER_KEY: secrets.secretsMasterKey,
  };
  const edgeArgs = ['dev', '--config', 'wrangler.toml', '--ip', '127.0.0.1', '--port', String(options.edgePort), '--persist-to', persist, '--show-interactive-dev-session=false', '--log-level', 'warn'];
  for (const [key, value] of Object.entries(vars)) edgeArgs.push('--var', `${key}:${value}`);
  const edge = spawnLogged(wrangler, edgeArgs, env, options, 'edge');
  const edgeUrl = `http://127.0.0.1:${options.edgePort}`;
  const adminHeaders = { authorization: `Bearer ${secrets.adminToken}`, 'content-type': 'application/json' };
  await waitFor(`${edgeUrl}/admin/health`, { headers: adminHeaders }, 'edge', edge);
  log(`edge listening on ${edgeUrl}`);

  const devAccount = await ensureDevAccount(edgeUrl, adminHeaders, dataDir, env);

  return {
    edgeUrl,
    backendUrls,
    databaseUrls,
    internalSecrets: secrets.internal,
    adminToken: secrets.adminToken,
    devAccount,
    restartBackend: async (region, signal = 'SIGTERM') => {
      await stopChild(backends[region], signal);
      await startBackend(region);
    },
    stop: async () => {
      await stopChild(edge);
      await Promise.all(REGIONS.map((r) => stopChild(backends[r])));
      await postgres?.stop();
    },
  };
}

/** The development account: its key comes from IRIS_DEV_KEY_ID / IRIS_DEV_KEY_SECRET, or is generated once. */
async function ensureDevAccount(edgeUrl: string, headers: Record<string, string>, dataDir: string, env: NodeJS.ProcessEnv): Promise<DevAccount> {
  const file = path.join(dataDir, 'dev-account.json');
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevAccount) : null;
  const keyId = env.IRIS_DEV_KEY_ID ?? saved?.key_id ?? `iris${randomBytes(8).toString('hex')}`;
  const secret = env.IRIS_DEV_KEY_SECRET ?? saved?.secret ?? randomBytes(20).toString('base64url');
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${edgeUrl}${url}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (!res.ok) throw new Error(`admin ${method} ${url} failed: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  let accountId = saved?.account_id;
  if (accountId === undefined) {
    const account = await call('POST', '/admin/accounts', { name: 'development' });
    accountId = Number(account.id);
  }
  await call('POST', `/admin/accounts/${accountId}/keys`, { key_id: keyId, secret });
  const devAccount: DevAccount = { account_id: accountId, key_id: keyId, secret };
  writeFileSync(file, JSON.stringify(devAccount, null, 2), { mode: 0o600 });
  return devAccount;
}
