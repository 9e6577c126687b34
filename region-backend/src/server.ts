/** Starts one region backend and shuts it down gracefully: stop accepting, finish in-flight work, close pools. */
import './threadpool.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { validateModelOverrides } from './vision/runtime/model-config.js';
import { loadConfig, type BackendConfig } from './config.js';
import { StartupError, errorCode, startupMessage } from './util/startup-error.js';

/** A start-up failure in one line on stderr (cause and fix), no stack trace unless IRIS_DEBUG is set. */
function failStart(err: unknown, region: string | undefined): never {
  const detail = err instanceof StartupError ? '' : ' (IRIS_DEBUG=1 prints the full error)';
  process.stderr.write(`iris backend${region ? ` ${region}` : ''}: cannot start: ${startupMessage(err)}${detail}\n`);
  if (process.env.IRIS_DEBUG) console.error(err);
  process.exit(1);
}

let config: BackendConfig;
let app: FastifyInstance;
try {
  // Configuration is read once, here; a bad value (or a model override naming a missing file) stops the boot.
  config = loadConfig();
  const overriddenModels = validateModelOverrides();
  app = await buildApp(config);
  if (overriddenModels.length) app.log.info({ stages: overriddenModels }, 'model overrides in use');
} catch (err) {
  failStart(err, process.env.IRIS_REGION);
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 30_000);
  force.unref();
  try {
    await app.close();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.listen({ host: config.host, port: config.port });
} catch (err) {
  const code = errorCode(err);
  const where = `${config.host}:${config.port}`;
  const reason =
    code === 'EADDRINUSE' ? new StartupError(`port ${where} is already in use: stop the program holding it or set PORT to a free port`)
    : code === 'EACCES' ? new StartupError(`not allowed to listen on ${where}: set PORT to a port above 1023`)
    : code === 'EADDRNOTAVAIL' ? new StartupError(`HOST ${config.host} is not an address of this machine: set HOST to one (127.0.0.1 or 0.0.0.0)`)
    : err;
  await app.close().catch(() => {});
  failStart(reason, config.region);
}
