/** Starts one region backend and shuts it down gracefully: stop accepting, finish in-flight work, close pools. */
import { buildApp } from './app.js';
import { validateModelOverrides } from './analysis/model-config.js';
import { loadConfig } from './config.js';

// Configuration is read once, here; a bad value (or a model override naming a missing file) stops the boot.
const config = loadConfig();
const overriddenModels = validateModelOverrides();
const app = await buildApp(config);
if (overriddenModels.length) app.log.info({ stages: overriddenModels }, 'model overrides in use');

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

await app.listen({ host: config.host, port: config.port });
