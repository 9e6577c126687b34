/**
 * The edge as `npm start` runs it (`scripts/edge-server.ts`: the deploy bundle on workerd), with a freshly
 * migrated local D1 in a temporary folder, for the node-side tests that drive it over HTTP.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WRANGLER = path.join(ROOT, 'node_modules', '.bin', 'wrangler');
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' };

export interface EdgeServerProcess {
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface EdgeServerOptions {
  port: number;
  /** The admin token: readiness is an `/admin/health` call answered 200. */
  admin: string;
  /** Worker vars and secrets (`--var NAME:value`). */
  vars: Record<string, string>;
  /** Exposes the isolates over the inspector protocol (diagnosis and the memory test only). */
  inspectorPort?: number;
}

/** Starts the edge and resolves once it answers `/admin/health`; fails if it exits first. */
export async function startEdgeServer(options: EdgeServerOptions): Promise<EdgeServerProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-edge-server-'));
  execFileSync(WRANGLER, ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', dataDir, '--config', 'wrangler.toml'], { cwd: ROOT, env, stdio: 'ignore' });
  const args = ['--import', 'tsx', 'scripts/edge-server.ts', '--config', 'wrangler.toml', '--ip', '127.0.0.1', '--port', String(options.port), '--persist-to', dataDir];
  if (options.inspectorPort !== undefined) args.push('--inspector-port', String(options.inspectorPort));
  for (const [k, v] of Object.entries(options.vars)) args.push('--var', `${k}:${v}`);
  const edge = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'ignore' });
  const stop = async () => {
    if (edge.exitCode === null && edge.signalCode === null) {
      const exited = new Promise((r) => edge.once('exit', r));
      edge.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${options.port}/admin/health`, { headers: { authorization: `Bearer ${options.admin}` } }).then((r) => r.ok, () => false);
    if (ok) return { process: edge, stop };
    if (edge.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const exited = edge.exitCode !== null;
  await stop();
  throw new Error(exited ? 'the edge exited' : 'the edge did not become ready');
}
