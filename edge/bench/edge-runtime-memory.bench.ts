/**
 * Resident memory of the local edge runtime under sustained traffic: the same bare forwarding Worker (no D1,
 * no checks, the edge-overhead floor) under `wrangler dev` (its development proxy Worker in one workerd, the
 * Worker in another) and on the runtime `npm start` uses (scripts/edge-server.ts: the deploy bundle on one
 * workerd through Miniflare), in front of a loopback backend that answers at once. Each gets the same calls
 * (4 at a time; every 20th a 1 MB upload); the RSS of every workerd process is sampled along the way.
 *
 *   npm run bench -- edge-runtime-memory          (IRIS_BENCH_CALLS=20000 by default)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { comm, descendants, rssMb } from '../../scripts/process-tree.js';
import { printTable } from '../../scripts/table.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WRANGLER = path.join(ROOT, 'node_modules', '.bin', 'wrangler');
const CALLS = Number(process.env.IRIS_BENCH_CALLS ?? 20_000);
const SAMPLES = 10;
const IN_FLIGHT = 4;
const UPLOAD = Buffer.alloc(1024 * 1024, 7);
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' };

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((r) => server.close(r));
  return port;
}

/** RSS (MB) of every workerd process under `pid`, in pid order. */
function workerdRss(pid: number): number[] {
  return descendants(pid)
    .filter((p) => comm(p) === 'workerd')
    .map((p) => Math.round(rssMb(p)));
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 480; i++) {
    if (child.exitCode !== null) throw new Error(`the runtime exited (${child.exitCode})`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the runtime did not start');
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Run {
  runtime: string;
  seconds: number;
  /** RSS of each workerd process at start and at each tenth of the calls. */
  samples: number[][];
}

async function drive(runtime: string, child: ChildProcess, base: string): Promise<Run> {
  await waitReady(`${base}/ready`, child);
  const samples = [workerdRss(child.pid!)];
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (sent < CALLS) {
        const n = ++sent;
        const res = await fetch(`${base}/get_image_sets/_0000014?i=${n}`, n % 20 === 0 ? { method: 'POST', body: UPLOAD } : {});
        await res.arrayBuffer();
        if (n % (CALLS / SAMPLES) === 0) samples.push(workerdRss(child.pid!));
      }
    }),
  );
  return { runtime, seconds: (performance.now() - started) / 1000, samples };
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-edge-memory-'));
  const backend = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  const backendUrl = `http://127.0.0.1:${await listen(backend)}`;
  const config = path.join(dir, 'bare-forward.toml');
  writeFileSync(config, `name = "iris-bare-forward"\nmain = ${JSON.stringify(path.join(ROOT, 'edge/bench/bare-forward.worker.ts'))}\ncompatibility_date = "2026-03-01"\n`);
  const runs: Run[] = [];
  try {
    const devPort = await freePort();
    const dev = spawn(WRANGLER, ['dev', '--config', config, '--ip', '127.0.0.1', '--port', String(devPort), '--persist-to', path.join(dir, 'dev'), '--show-interactive-dev-session=false', '--log-level', 'warn', '--var', `BACKEND_URL:${backendUrl}`], { cwd: ROOT, env, stdio: 'ignore' });
    try {
      runs.push(await drive('wrangler dev', dev, `http://127.0.0.1:${devPort}`));
    } finally {
      await stop(dev);
    }
    const port = await freePort();
    const edge = spawn(process.execPath, ['--import', 'tsx', 'scripts/edge-server.ts', '--config', config, '--ip', '127.0.0.1', '--port', String(port), '--persist-to', path.join(dir, 'edge'), '--var', `BACKEND_URL:${backendUrl}`], { cwd: ROOT, env, stdio: 'ignore' });
    try {
      runs.push(await drive('edge server (npm start)', edge, `http://127.0.0.1:${port}`));
    } finally {
      await stop(edge);
    }
  } finally {
    backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Bare forwarding Worker, ${CALLS} calls (${IN_FLIGHT} at a time, every 20th a 1 MB upload); RSS MB of each workerd process at the start and after each tenth of the calls.\n`);
  printTable(
    ['runtime', 'workerd', 'calls/s', 'start', ...Array.from({ length: SAMPLES }, (_, i) => `${((i + 1) * CALLS) / SAMPLES}`)],
    runs.flatMap((r) => r.samples[0]!.map((_, w) => [r.runtime, w + 1, Math.round(CALLS / r.seconds), ...r.samples.map((s) => s[w] ?? NaN)])),
  );
}
