/**
 * Debian's HAProxy in front of a region's backend processes, as an operator runs it: round robin, health checks
 * on `/readyz`, a connection refused by a dead process retried on another one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitUntil } from '../../../region-backend/test/support/wait-for.js';

export interface Haproxy {
  url: string;
  /** Resolves once every server has answered `/readyz` with 200 through HAProxy (each is in the rotation). */
  allServersUp(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startHaproxy(options: { binary: string; env: Record<string, string>; port: number; servers: number[] }): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-haproxy-'));
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      // A check's answer may take this long on a loaded machine (the deploy file's 5 s): a dead process still
      // leaves the rotation at once (its connection is refused), a busy one is not taken out.
      '  timeout check 5s',
      '  timeout client 180s',
      '  timeout server 180s',
      '  retries 3',
      '  option redispatch',
      'listen region',
      `  bind 127.0.0.1:${options.port}`,
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 500ms fall 2 rise 2',
      // Which process answered: a test waits until every one is in the rotation.
      '  http-response set-header x-iris-server %s',
      ...options.servers.map((port, i) => `  server backend${i} 127.0.0.1:${port} check`),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(options.binary, ['-db', '-f', config], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const output: string[] = [];
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const url = `http://127.0.0.1:${options.port}`;
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${output.join('')}`);
      return fetch(`${url}/readyz`).then((r) => r.status, () => 0);
    },
    // 503 from HAProxy itself while no backend is up yet: it listens.
    (status) => status !== 0,
    30_000,
  );
  return {
    url,
    allServersUp: async (timeoutMs) => {
      const seen = new Set<string>();
      await waitUntil(
        async () => {
          const res = await fetch(`${url}/readyz`).catch(() => undefined);
          const server = res?.headers.get('x-iris-server');
          if (res?.status === 200 && server) seen.add(server);
          return seen.size;
        },
        (count) => count === options.servers.length,
        timeoutMs,
      );
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
