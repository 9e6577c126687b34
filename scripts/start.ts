/**
 * `npm start`: the whole platform on this machine with no external services. Ctrl-C stops everything;
 * data stays under IRIS_DATA_DIR (default .iris) for the next start.
 */
import path from 'node:path';
import { ROOT, startPlatform } from './platform.js';

const dataDir = path.resolve(ROOT, process.env.IRIS_DATA_DIR ?? '.iris');
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const platform = await startPlatform({
  dataDir,
  edgePort: port('IRIS_EDGE_PORT', 8787),
  backendPorts: { 'cn-east': port('IRIS_BACKEND_PORT_CN_EAST', 8801), 'ap-southeast': port('IRIS_BACKEND_PORT_AP_SOUTHEAST', 8802) },
  allowPrivateUrls: process.env.IRIS_ALLOW_PRIVATE_URLS === '1',
  stdio: 'inherit',
  log: (message) => console.log(`[iris] ${message}`),
});

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
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
