/**
 * One sample of everything the soak watches, as named numbers: resident memory and open descriptors of each
 * backend process and of the edge's processes (the edge server and its workerd child, found under the edge's
 * process id in /proc), bytes in each region's temp folder and in the edge's local D1, PostgreSQL
 * connections per region, and the size and live rows of every table of each region's database.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { comm, descendants, parents, rssMb } from '../../scripts/process-tree.js';
import type { SoakPlatform } from './soak-platform.js';

export type Sample = Map<string, number>;

const REGIONS = ['cn-east', 'ap-southeast'] as const;
const MB = 1024 * 1024;

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

function folderBytes(dir: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const entry of entries) {
    try {
      const full = path.join(dir, entry);
      const stat = statSync(full);
      total += stat.isDirectory() ? folderBytes(full) : stat.size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** The processes watched, by a stable name: the backends and everything the edge's process started. */
function watchedProcesses(soak: SoakPlatform): [string, number][] {
  const { edge, backends } = soak.platform.processes();
  const parentOf = parents();
  const named: [string, number][] = [];
  // A process and what it started (esbuild of tsx, the edge server's workerd), each child named by its command.
  const withChildren = (label: string, pid: number) => {
    named.push([label, pid]);
    const counts = new Map<string, number>();
    for (const child of descendants(pid, parentOf)) {
      const name = comm(child);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      named.push([`${label.split(' (')[0]} ${name} ${counts.get(name)}`, child]);
    }
  };
  for (const region of REGIONS) {
    const pid = backends[region];
    if (pid) withChildren(`backend ${region}`, pid);
  }
  if (edge) withChildren('edge (server)', edge);
  return named;
}

/** pg-boss keeps each queue's jobs in a table named by a hash: `pgboss.<hash>` → `pgboss.job (<queue>)`. */
async function queueTables(client: pg.Client): Promise<Map<string, string>> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('pgboss.queue')::text AS t`);
  if (!exists.rows[0]?.t) return new Map();
  const queues = await client.query<{ name: string; partition_name: string | null }>('SELECT name, partition_name FROM pgboss.queue');
  return new Map(queues.rows.filter((q) => q.partition_name).map((q) => [`pgboss.${q.partition_name}`, `pgboss.job (${q.name})`]));
}

async function databaseSample(sample: Sample, region: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const connections = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    sample.set(`pg connections · ${region}`, Number(connections.rows[0]!.n));
    const tables = await client.query<{ name: string; bytes: string; rows: string }>(
      `SELECT schemaname || '.' || relname AS name, pg_total_relation_size(relid) AS bytes, n_live_tup AS rows FROM pg_stat_user_tables`,
    );
    const queues = await queueTables(client);
    let total = 0;
    for (const t of tables.rows) {
      total += Number(t.bytes);
      const name = queues.get(t.name) ?? t.name;
      sample.set(`table MB · ${region} ${name}`, Number(t.bytes) / MB);
      sample.set(`table rows · ${region} ${name}`, Number(t.rows));
    }
    sample.set(`database MB · ${region}`, total / MB);
  } finally {
    await client.end();
  }
}

export async function takeSample(soak: SoakPlatform): Promise<Sample> {
  const sample: Sample = new Map();
  for (const [name, pid] of watchedProcesses(soak)) {
    try {
      sample.set(`RSS MB · ${name}`, rssMb(pid));
      sample.set(`open fds · ${name}`, openFds(pid));
    } catch {
      // ended between the listing and the reading: it is missing from this sample
    }
  }
  for (const region of REGIONS) sample.set(`temp MB · ${region}`, folderBytes(path.join(soak.dataDir, 'regions', region, 'tmp')) / MB);
  sample.set('edge D1 MB', folderBytes(path.join(soak.dataDir, 'wrangler')) / MB);
  for (const region of REGIONS) await databaseSample(sample, region, soak.platform.databaseUrls[region]);
  return sample;
}
