/**
 * deploy/compose.yaml, deploy/haproxy.cfg and deploy/iris-backend.service say what deploy/README.md promises:
 * a PostgreSQL that has pgvector, backends that run under an init process with a /readyz health check, metrics
 * on the private network only, every process of a region on the region's shared store with a cache of its
 * own, a region of several processes behind a load balancer that checks /readyz. The compose health check's
 * command is run for real against an HTTP server; HAProxy and systemd check their files where installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseDockerfile } from './support/dockerfile-parser.js';

const DEPLOY = path.resolve(import.meta.dirname, '../../deploy');
const read = (file: string) => readFileSync(path.join(DEPLOY, file), 'utf8');

interface Service {
  image?: string;
  init?: boolean;
  ports?: string[];
  expose?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
}
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const backends = Object.entries(compose.services).filter(([name]) => name.startsWith('backend-'));

function installed(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
}

/** The runtime image's ENV (the last stage's). */
function imageEnv(): Record<string, string> {
  const stages = parseDockerfile(read('backend.Dockerfile')).stages;
  const env: Record<string, string> = {};
  for (const instruction of stages[stages.length - 1]!.instructions) if (instruction.kind === 'ENV') for (const [k, v] of instruction.pairs) env[k] = v;
  return env;
}

describe('deploy/compose.yaml', () => {
  it('runs PostgreSQL from an image with pgvector', () => {
    expect(compose.services.postgres?.image).toMatch(/^pgvector\/pgvector:pg1[4-9]\b/);
  });

  it('runs every region backend under an init process, with a /readyz health check, metrics unpublished', () => {
    expect(backends.map(([name]) => name).sort()).toEqual(['backend-ap-southeast', 'backend-cn-east']);
    for (const [name, service] of backends) {
      const env = service.environment!;
      expect(service.init, name).toBe(true);
      expect(service.healthcheck?.test.join(' '), name).toContain(`http://127.0.0.1:${env.PORT}/readyz`);
      expect(env.IRIS_METRICS_HOST, name).toBe('0.0.0.0');
      expect(service.expose, name).toEqual(expect.arrayContaining([env.PORT, env.IRIS_METRICS_PORT]));
      expect(service.ports, `${name} publishes nothing: the load balancer is its address`).toBeUndefined();
    }
  });

  it('gives every process of a region the region shared store and a cache of its own, as the image declares them', () => {
    const image = imageEnv();
    for (const [name, service] of backends) {
      const env = service.environment!;
      expect(env.IRIS_SHARED_DIR, name).toBe(image.IRIS_SHARED_DIR);
      expect(env.IRIS_CACHE_DIR, name).toBe(image.IRIS_CACHE_DIR);
      const shared = service.volumes!.find((v) => v.endsWith(`:${env.IRIS_SHARED_DIR}`));
      expect(shared, name).toBeDefined();
      expect(Object.keys(compose.volumes)).toContain(shared!.split(':')[0]);
      // An anonymous volume: each container (each replica) gets its own.
      expect(service.volumes, name).toContain(env.IRIS_CACHE_DIR);
    }
    const sharedVolumes = backends.map(([, s]) => s.volumes!.find((v) => v.endsWith(`:${s.environment!.IRIS_SHARED_DIR}`))!.split(':')[0]);
    expect(new Set(sharedVolumes).size, 'one shared store per region').toBe(backends.length);
  });

  it('serves a region from several processes behind a load balancer that publishes on loopback only', () => {
    expect(compose.services['backend-cn-east']?.deploy?.replicas).toBeGreaterThan(1);
    const lb = compose.services['load-balancer']!;
    expect(lb.ports).toEqual(['127.0.0.1:8801:8801', '127.0.0.1:8802:8802']);
    const cfg = read('haproxy.cfg');
    for (const [name, service] of backends) expect(cfg).toContain(`server-template backend 8 ${name}:${service.environment!.PORT}`);
    expect(cfg.match(/option httpchk GET \/readyz/g)).toHaveLength(backends.length);
  });

  it('has a health check command that passes on 200 and fails otherwise (run with node, as in the slim image)', async () => {
    const command = compose.services['backend-cn-east']!.healthcheck!.test;
    expect(command.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    let status = 200;
    const server = http.createServer((req, res) => res.writeHead(req.url === '/readyz' ? status : 404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // The same script, pointed at this server's port instead of the container's 8801.
    const script = command[3]!.replace('127.0.0.1:8801', `127.0.0.1:${port}`);
    const run = () => new Promise<number | null>((resolve) => spawn(process.execPath, ['-e', script], { stdio: 'ignore' }).once('exit', (code) => resolve(code)));
    try {
      expect(await run()).toBe(0);
      status = 503;
      expect(await run()).toBe(1);
      server.close();
      expect(await run()).toBe(1);
    } finally {
      server.close();
    }
  });

  it.runIf(installed('haproxy'))('has a load balancer configuration HAProxy accepts', () => {
    const check = spawnSync('haproxy', ['-c', '-f', path.join(DEPLOY, 'haproxy.cfg')], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });
});

describe('deploy/iris-backend.service', () => {
  const unit = read('iris-backend.service');
  const settings = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!);
  const environment = Object.fromEntries(settings('Environment').flatMap((line) => line.split(/\s+/).map((pair) => pair.split('=') as [string, string])));

  it('sets the shared store, the cache and the metrics listener, and writes nowhere else', () => {
    expect(environment.IRIS_CACHE_DIR).toBe('/var/cache/iris');
    expect(settings('CacheDirectory')).toEqual(['iris']);
    expect(environment.IRIS_SHARED_DIR).toMatch(/^\//);
    expect(settings('ReadWritePaths')).toEqual([environment.IRIS_SHARED_DIR]);
    expect(settings('RequiresMountsFor')).toEqual([environment.IRIS_SHARED_DIR]);
    expect(environment.IRIS_METRICS_PORT).toMatch(/^\d+$/);
    expect(settings('ProtectSystem')).toEqual(['strict']);
    expect(settings('NoNewPrivileges')).toEqual(['true']);
    expect(settings('CapabilityBoundingSet')).toEqual(['']);
    expect(settings('User')).toEqual(['iris']);
  });

  it.runIf(installed('systemd-analyze'))('passes systemd-analyze verify', () => {
    const check = spawnSync('systemd-analyze', ['verify', path.join(DEPLOY, 'iris-backend.service')], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stderr.trim()).toBe('');
  });
});
