/**
 * What the edge adds to a call, on workerd with a local D1 as `npm start` runs it (scripts/edge-server.ts), in
 * front of a loopback backend that answers at once: the backend alone, a bare forwarding Worker (the floor: same
 * runtime, no D1, no checks), then through the edge for a plain authenticated call, a signed call (HMAC
 * + nonce write), a by-id call (registry check), an analysis call (grant check), a create (reserve, forward,
 * confirm) and multipart uploads of 64 KB, 1 MB and 10 MB; with the D1 round trips each call made (the edge
 * reports them with EDGE_REPORT_D1_QUERIES=1). Uploads go through the edge twice, streamed
 * (EDGE_STREAM_MIN_BYTES=1) and buffered (a second edge with EDGE_STREAM_MIN_BYTES above any upload), which
 * is how the default threshold was chosen; then the peak memory (RSS high-water mark of each workerd process,
 * /proc VmHWM) while 4 uploads of 10 MB are in flight. Sequential calls, then 8 concurrent plain calls through
 * the bare Worker and the edge. Goal (issue 12): edge overhead ≤ 1.2 × bare-Worker overhead.
 *
 *   npm run bench -- edge-overhead          (IRIS_BENCH_CALLS=200 by default)
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { comm, descendants } from '../../scripts/process-tree.js';
import { median, percentile, printTable } from '../../scripts/table.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WRANGLER = path.join(ROOT, 'node_modules', '.bin', 'wrangler');
const CALLS = Number(process.env.IRIS_BENCH_CALLS ?? 200);
const ADMIN = randomBytes(16).toString('hex');
const SECRET = randomBytes(16).toString('hex');
const MASTER_KEY = randomBytes(32).toString('base64');
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' };

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((r) => server.close(r));
  return port;
}

/** Answers at once; confirms minted ids like a real backend; drains uploads. */
function startBackend(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const context = req.headers['x-iris-context'];
      const resourceId = typeof context === 'string' ? (JSON.parse(Buffer.from(context, 'base64url').toString()) as { resourceId?: string }).resourceId : undefined;
      res.writeHead(200, { 'content-type': 'application/json', ...(resourceId ? { 'x-iris-registry': JSON.stringify({ live: [resourceId] }) } : {}) });
      res.end(JSON.stringify({ ok: true, id: resourceId }));
    });
  });
  return listen(server).then((port) => ({ server, port }));
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error('the edge server exited');
    try {
      if ((await fetch(url, { headers: { authorization: `Bearer ${ADMIN}` } })).ok) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the edge server did not start');
}

function signed(keyId: string, secret: string, params: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ca-accesskeyid': keyId,
    'x-ca-version': '1',
    'x-ca-timestamp': String(Math.floor(Date.now() / 1000)),
    'x-ca-signaturenonce': randomBytes(16).toString('hex'),
    requestmethod: 'POST',
  };
  const all = { ...params, ...headers };
  const text = Object.keys(all).sort().map((k) => `${k}=${all[k]}`).join('&');
  return { ...headers, 'x-ca-signature': createHmac('sha1', secret).update(text).digest('base64') };
}

interface Sample {
  times: number[];
  /** D1 round trips per call as the edge reported them (empty for calls that do not reach the edge). */
  d1: number[];
}

async function measure(calls: number, fn: () => Promise<Response>, sample: Sample = { times: [], d1: [] }): Promise<Sample> {
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const res = await fn();
    if (res.ok) await res.arrayBuffer();
    if (!res.ok) throw new Error(`call failed: ${res.status} ${await res.text().catch(() => '')}`);
    sample.times.push(performance.now() - t);
    const d1 = res.headers.get('x-iris-d1-queries');
    if (d1 !== null) sample.d1.push(Number(d1));
  }
  return sample;
}

/** Pids of `pid`'s descendants named `name` (the workerd process under an edge server). */
function descendantsNamed(pid: number, name: string): number[] {
  return descendants(pid).filter((p) => comm(p) === name);
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN);
}

/** Peak RSS growth (MB, summed over its workerd processes) of an edge server while `inFlight` calls of `fn` run at once, twice. */
async function peakMemory(child: ChildProcess, inFlight: number, fn: () => Promise<Response>): Promise<number> {
  const pids = descendantsNamed(child.pid!, 'workerd');
  if (!pids.length) return NaN;
  const before = pids.map((pid) => statusKb(pid, 'VmRSS'));
  for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets the high-water mark to the current RSS
  for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: inFlight }, () => measure(1, fn)));
  return pids.reduce((sum, pid, i) => sum + statusKb(pid, 'VmHWM') - before[i]!, 0) / 1024;
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);

/** Starts a Worker config on workerd as `npm start` runs the edge, and waits until `readyPath` answers. */
async function startEdgeServer(config: string, port: number, dataDir: string, vars: Record<string, string>, readyPath: string): Promise<ChildProcess> {
  const args = ['--import', 'tsx', 'scripts/edge-server.ts', '--config', config, '--ip', '127.0.0.1', '--port', String(port), '--persist-to', dataDir];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'ignore' });
  await waitReady(`http://127.0.0.1:${port}${readyPath}`, child);
  return child;
}

async function concurrent(total: number, concurrency: number, fn: () => Promise<Response>): Promise<{ rate: number; latencies: number[] }> {
  let next = 0;
  const sample: Sample = { times: [], d1: [] };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await measure(1, fn, sample);
    }),
  );
  return { rate: total / ((performance.now() - started) / 1000), latencies: sample.times };
}

export default async function run(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-edge-bench-'));
  const backend = await startBackend();
  const backendUrl = `http://127.0.0.1:${backend.port}`;
  const [port, barePort, bufferedPort] = [await freePort(), await freePort(), await freePort()];
  let edge: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  let buffered: ChildProcess | undefined;
  try {
    execFileSync(WRANGLER, ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', dataDir, '--config', 'wrangler.toml'], { cwd: ROOT, env, stdio: 'ignore' });
    const vars = {
      ADMIN_TOKEN: ADMIN,
      BACKEND_URL_CN_EAST: backendUrl,
      BACKEND_URL_AP_SOUTHEAST: backendUrl,
      INTERNAL_SECRET_CN_EAST: SECRET,
      INTERNAL_SECRET_AP_SOUTHEAST: SECRET,
      SECRETS_MASTER_KEY: MASTER_KEY,
      EDGE_REPORT_D1_QUERIES: '1',
    };
    // The edge's own wrangler.toml with a rate limit the benchmark's single key cannot reach.
    const edgeConfig = path.join(dataDir, 'edge.toml');
    const toml = readFileSync(path.join(ROOT, 'wrangler.toml'), 'utf8')
      .replace(/^main = .*$/m, `main = ${JSON.stringify(path.join(ROOT, 'edge/src/index.ts'))}`)
      .replace(/^migrations_dir = .*$/m, `migrations_dir = ${JSON.stringify(path.join(ROOT, 'edge/migrations'))}`)
      .replace(/^directory = .*$/m, `directory = ${JSON.stringify(path.join(ROOT, 'console/dist'))}`)
      .replace(/simple = \{ limit = \d+/, 'simple = { limit = 100000000');
    writeFileSync(edgeConfig, toml);
    const bareConfig = path.join(dataDir, 'bare-forward.toml');
    writeFileSync(bareConfig, `name = "iris-bare-forward"\nmain = ${JSON.stringify(path.join(ROOT, 'edge/bench/bare-forward.worker.ts'))}\ncompatibility_date = "2026-03-01"\n`);
    // Both edges share one local D1 (same persist folder): the account and key work on either.
    [edge, bare, buffered] = await Promise.all([
      startEdgeServer(edgeConfig, port, dataDir, { ...vars, EDGE_STREAM_MIN_BYTES: '1' }, '/admin/health'),
      startEdgeServer(bareConfig, barePort, path.join(dataDir, 'bare'), { BACKEND_URL: backendUrl }, '/healthz'),
      startEdgeServer(edgeConfig, bufferedPort, dataDir, { ...vars, EDGE_STREAM_MIN_BYTES: '1000000000' }, '/admin/health'),
    ]);
    const edgeUrl = `http://127.0.0.1:${port}`;
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const bufferedUrl = `http://127.0.0.1:${bufferedPort}`;

    const adminHeaders = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    const account = (await (await fetch(`${edgeUrl}/admin/accounts`, { method: 'POST', headers: adminHeaders, body: '{"name":"bench"}' })).json()) as { id: number };
    const key = (await (await fetch(`${edgeUrl}/admin/accounts/${account.id}/keys`, { method: 'POST', headers: adminHeaders, body: '{}' })).json()) as { key_id: string; secret: string };
    await fetch(`${edgeUrl}/admin/accounts/${account.id}/quotas`, { method: 'PUT', headers: adminHeaders, body: JSON.stringify({ image_sets: 100_000 }) });
    const auth = { 'x-ca-version': '1', 'x-ca-accesskeyid': key.key_id };
    const created = (await (await fetch(`${edgeUrl}/image_sets/_0000014`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"b"}' })).json()) as { id: string };
    const multipart = (size: number) => {
      const upload = new Uint8Array(size).fill(97);
      return () => {
        const form = new FormData();
        form.append('urls_to_add', new Blob([upload]), 'urls.csv');
        return form;
      };
    };
    const uploadTo = (base: string, body: () => FormData) => () => fetch(`${base}/image_sets/_0000014/${created.id}`, { method: 'POST', headers: auth, body: body() });
    const uploads = Math.max(10, Math.round(CALLS / 10));
    const uploadCases: [string, number, () => Promise<Response>][] = [];
    for (const [label, size] of [['64 KB', 64 * 1024], ['1 MB', 1024 * 1024], ['10 MB', 10 * 1024 * 1024]] as const) {
      const body = multipart(size);
      uploadCases.push([`edge, streamed: ${label} multipart upload`, uploads, uploadTo(edgeUrl, body)]);
      uploadCases.push([`edge, buffered: ${label} multipart upload`, uploads, uploadTo(bufferedUrl, body)]);
      uploadCases.push([`bare Worker: ${label} multipart upload`, uploads, uploadTo(bareUrl, body)]);
    }

    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const plain = () => fetch(`${edgeUrl}/get_image_sets/_0000014`, { headers: auth });
    const barePlain = () => fetch(`${bareUrl}/get_image_sets/_0000014`, { headers: auth });
    const cases: [string, number, () => Promise<Response>][] = [
      ['backend alone (no Worker)', CALLS, () => fetch(`${backendUrl}/get_image_sets/_0000014`)],
      ['bare forwarding Worker (floor)', CALLS, barePlain],
      ['edge: access key + forward', CALLS, plain],
      ['edge: signed form call', CALLS, () => fetch(`${edgeUrl}/get_image_sets/_0000014`, { method: 'POST', headers: { ...signed(key.key_id, key.secret, { count: '20' }), ...form }, body: 'count=20' })],
      ['edge: by-id call (registry check)', CALLS, () => fetch(`${edgeUrl}/image_sets/_0000014/${created.id}`, { headers: auth })],
      ['edge: analysis call (grant check)', CALLS, () => fetch(`${edgeUrl}/detect/_0000049`, { method: 'POST', headers: auth })],
      ['edge: create (reserve, forward, confirm)', CALLS, () => fetch(`${edgeUrl}/image_sets/_0000014`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"b"}' })],
      ...uploadCases,
    ];
    // Memory first, while no upload has grown a workerd heap yet (a heap keeps its pages once grown).
    const tenMb = multipart(10 * 1024 * 1024);
    const memoryRows: (string | number)[][] = [];
    for (const [label, child, base] of [['edge, streamed', edge, edgeUrl], ['edge, buffered', buffered, bufferedUrl], ['bare Worker', bare, bareUrl]] as const) {
      await measure(2, uploadTo(base, multipart(64 * 1024))); // warm: key cache, code paths
      const peak = await peakMemory(child, 4, uploadTo(base, tenMb));
      memoryRows.push([label, 4, peak, peak / 4]);
    }

    await measure(20, plain); // warm-up: the isolate caches fill here
    await measure(20, barePlain);
    await measure(5, cases[4]![2]);
    await measure(5, cases[5]![2]);
    // Round-robin: every round makes one call of each case, so that the load of a shared machine falls on
    // all cases alike (uploads every 10th round).
    const samples = cases.map((): Sample => ({ times: [], d1: [] }));
    for (let round = 0; round < CALLS; round++) {
      for (const [i, [, calls, fn]] of cases.entries()) {
        if (calls < CALLS && round % Math.round(CALLS / calls) !== 0) continue;
        await measure(1, fn, samples[i]);
      }
    }
    const rows: (string | number)[][] = [];
    const medians: Record<string, number> = {};
    for (const [i, [name]] of cases.entries()) {
      const { times, d1 } = samples[i]!;
      medians[name] = median(times);
      rows.push([name, times.length, median(times), percentile(times, 95), percentile(times, 99), d1.length ? mean(d1) : '—']);
    }
    printTable(['call', 'calls', 'median ms', 'p95 ms', 'p99 ms', 'D1 queries/call'], rows);

    printTable(['10 MB uploads, 4 in flight (2 rounds, before any other upload)', 'in flight', 'workerd peak RSS growth MB', 'MB per upload'], memoryRows);

    const floor = medians['backend alone (no Worker)']!;
    const bareAdds = medians['bare forwarding Worker (floor)']! - floor;
    const edgeAdds = medians['edge: access key + forward']! - floor;
    printTable(
      ['overhead over the backend alone', 'median ms', 'ratio to bare Worker'],
      [
        ['bare forwarding Worker', bareAdds, 1],
        ['edge: plain authenticated call', edgeAdds, edgeAdds / bareAdds],
        ['edge: by-id call', medians['edge: by-id call (registry check)']! - floor, (medians['edge: by-id call (registry check)']! - floor) / bareAdds],
      ],
    );

    const concurrency = 8;
    const rounds = 4;
    const perRound = Math.max(50, Math.round(CALLS / 2));
    const rateRows: (string | number)[][] = [];
    const runs: Record<string, { rates: number[]; latencies: number[] }> = { bare: { rates: [], latencies: [] }, edge: { rates: [], latencies: [] } };
    for (let round = 0; round < rounds; round++) {
      for (const [name, fn] of [['bare', barePlain], ['edge', plain]] as const) {
        const { rate, latencies } = await concurrent(perRound, concurrency, fn);
        runs[name]!.rates.push(rate);
        runs[name]!.latencies.push(...latencies);
      }
    }
    for (const [label, name] of [['bare forwarding Worker', 'bare'], ['edge: access key + forward', 'edge']] as const) {
      const run = runs[name]!;
      rateRows.push([label, concurrency, perRound * rounds, median(run.rates), median(run.latencies), percentile(run.latencies, 95)]);
    }
    printTable(['concurrent plain calls (4 alternating rounds)', 'in flight', 'calls', 'median calls/s', 'median ms', 'p95 ms'], rateRows);
    console.log(`Machine load average (1 min) at the end: ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores.`);
  } finally {
    edge?.kill('SIGTERM');
    bare?.kill('SIGTERM');
    buffered?.kill('SIGTERM');
    await new Promise((r) => backend.server.close(r));
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
