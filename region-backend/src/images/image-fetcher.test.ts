import { spawn } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from './address-guard.js';
import { defaultDnsResolver } from './dns-resolver.js';
import { fetchImage, ImageFetchError, USER_AGENT, type FetchOptions } from './image-fetcher.js';
import { alphaPng, animated, bmp, HTML_PAGE, photoJpeg, photoPixels } from '../../test/support/test-images.js';

interface Route {
  status?: number;
  headers?: Record<string, string | number>;
  body?: Buffer;
  /** Custom behaviour for slow or broken responses. */
  handle?: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

const routes = new Map<string, Route>();
const seen: http.IncomingHttpHeaders[] = [];
let server: http.Server;
let base: string;
let port: number;

const opts = (extra: Partial<FetchOptions> = {}): Partial<FetchOptions> => ({ allowPrivateAddresses: true, ...extra });

async function fetchError(url: string, options: Partial<FetchOptions>): Promise<ImageFetchError> {
  const err = await fetchImage(url, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImageFetchError);
  return err as ImageFetchError;
}

beforeAll(async () => {
  const jpeg = await photoJpeg(320, 240);
  routes.set('/photo.jpg', { headers: { 'content-type': 'image/jpeg' }, body: jpeg });
  routes.set('/alpha.png', { headers: { 'content-type': 'image/png' }, body: await alphaPng() });
  routes.set('/anim.gif', { body: await animated('gif') });
  routes.set('/anim.webp', { headers: { 'content-type': 'application/octet-stream' }, body: await animated('webp') });
  routes.set('/photo.bmp', { body: bmp(photoPixels(40, 30), '24') });
  routes.set('/page.jpg', { headers: { 'content-type': 'image/jpeg' }, body: HTML_PAGE });
  routes.set('/empty.jpg', { headers: { 'content-type': 'image/jpeg' }, body: Buffer.alloc(0) });
  routes.set('/gzipped.jpg', { headers: { 'content-encoding': 'gzip' }, body: gzipSync(jpeg) });
  routes.set('/gzip-bomb', { headers: { 'content-encoding': 'gzip' }, body: gzipSync(Buffer.alloc(64 * 1024 * 1024)) });
  routes.set('/missing.jpg', { status: 404, body: HTML_PAGE });
  routes.set('/error.jpg', { status: 500, body: Buffer.from('oops') });
  routes.set('/big.jpg', { body: Buffer.concat([jpeg, Buffer.alloc(200_000)]) });
  routes.set('/big-chunked.jpg', {
    handle: (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(jpeg);
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(10_000));
      res.end();
    },
  });
  routes.set('/never-answers', { handle: () => {} });
  routes.set('/stalls-mid-body', {
    handle: (_req, res) => {
      res.writeHead(200, { 'content-length': jpeg.length });
      res.write(jpeg.subarray(0, 1000));
    },
  });
  routes.set('/cut-short', {
    handle: (_req, res) => {
      res.writeHead(200, { 'content-length': jpeg.length });
      res.write(jpeg.subarray(0, 1000), () => res.destroy());
    },
  });
  routes.set('/set-cookie-redirect', { status: 302, headers: { location: '/photo.jpg', 'set-cookie': 'session=secret; Path=/' } });
  routes.set('/to-file', { status: 302, headers: { location: 'file:///etc/passwd' } });
  routes.set('/to-gopher', { status: 301, headers: { location: 'gopher://example.com/' } });
  routes.set('/to-loopback-alias', { status: 302, headers: { location: '/loopback-alias' } });
  routes.set('/no-location', { status: 302 });
  routes.set('/bad-location', { status: 302, headers: { location: 'http://[::1' } });
  server = http.createServer((req, res) => {
    seen.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://x');
    const chain = /^\/redirect\/(\d+)$/.exec(url.pathname);
    if (chain) {
      const left = Number(chain[1]);
      res.writeHead(left % 2 ? 301 : 307, { location: left > 1 ? `/redirect/${left - 1}` : `${base}/photo.jpg` }).end();
      return;
    }
    if (url.pathname === '/to-private') {
      res.writeHead(302, { location: `http://127.0.0.2:${port}/photo.jpg` }).end();
      return;
    }
    if (url.pathname === '/to-internal-name') {
      res.writeHead(302, { location: `http://internal.iris.test:${port}/photo.jpg` }).end();
      return;
    }
    const route = routes.get(url.pathname);
    if (!route) return void res.writeHead(404).end();
    if (route.handle) return route.handle(req, res);
    res.writeHead(route.status ?? 200, route.headers).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('fetchImage: downloads (private addresses allowed, as in local development)', () => {
  it.each([
    ['/photo.jpg', 'jpeg'],
    ['/alpha.png', 'png'],
    ['/anim.gif', 'gif'],
    ['/anim.webp', 'webp'],
    ['/photo.bmp', 'bmp'],
  ])('reads %s as %s from its magic bytes', async (path, format) => {
    const image = await fetchImage(`${base}${path}`, opts());
    expect(image.format).toBe(format);
    expect(Buffer.from(image.bytes).equals(routes.get(path)!.body!)).toBe(true);
    expect(image.finalUrl).toBe(`${base}${path}`);
    expect(image.downloadMs).toBeGreaterThan(0);
  });

  it('sends the Iris user agent and no cookies, even after a server set one', async () => {
    seen.length = 0;
    await fetchImage(`${base}/set-cookie-redirect`, opts());
    expect(seen).toHaveLength(2);
    for (const headers of seen) {
      expect(headers['user-agent']).toBe(USER_AGENT);
      expect(headers.cookie).toBeUndefined();
    }
  });

  it('does not send credentials written into the URL', async () => {
    seen.length = 0;
    await fetchImage(`http://user:secret@127.0.0.1:${port}/photo.jpg`, opts());
    expect(seen[0]?.authorization).toBeUndefined();
  });

  it('undoes a content encoding the server applied anyway', async () => {
    const image = await fetchImage(`${base}/gzipped.jpg`, opts());
    expect(image.format).toBe('jpeg');
    expect(Buffer.from(image.bytes).equals(routes.get('/photo.jpg')!.body!)).toBe(true);
  });

  it('refuses HTML served as image/jpeg, and empty bodies', async () => {
    const html = await fetchError(`${base}/page.jpg`, opts());
    expect(html.kind).toBe('not-an-image');
    expect(html.message).toContain('HTML');
    expect((await fetchError(`${base}/empty.jpg`, opts())).kind).toBe('not-an-image');
  });

  it('refuses non-2xx answers with their status', async () => {
    const missing = await fetchError(`${base}/missing.jpg`, opts());
    expect([missing.kind, missing.status]).toEqual(['http-status', 404]);
    expect((await fetchError(`${base}/error.jpg`, opts())).status).toBe(500);
    expect((await fetchError(`${base}/no-location`, opts())).status).toBe(302);
  });

  it('enforces the size limit from Content-Length and while streaming, after decompression', async () => {
    const options = opts({ maxBytes: 100_000 });
    expect((await fetchError(`${base}/big.jpg`, options)).kind).toBe('too-large');
    const chunked = await fetchError(`${base}/big-chunked.jpg`, options);
    expect(chunked.kind).toBe('too-large');
    expect(chunked.message).toContain('97.7 KB');
    expect((await fetchError(`${base}/gzip-bomb`, opts({ maxBytes: 1024 * 1024 }))).kind).toBe('too-large');
    await expect(fetchImage(`${base}/photo.jpg`, options)).resolves.toBeTruthy();
  });

  it('times out on a server that never answers and on one that stalls mid-body', async () => {
    const started = performance.now();
    const silent = await fetchError(`${base}/never-answers`, opts({ timeoutMs: 300 }));
    expect(silent.kind).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await fetchError(`${base}/stalls-mid-body`, opts({ timeoutMs: 300 }))).kind).toBe('timeout');
  });

  it('gives up on a connection that is not accepted within the connect timeout', async () => {
    // A listener in another process whose accept queue is full and whose event loop is blocked: the
    // kernel drops further SYNs, so the next connect hangs in the connect phase.
    const listener = spawn(process.execPath, [
      '-e',
      `const s = require('node:net').createServer();
       s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         process.stdout.write(s.address().port + '\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
       });`,
    ]);
    const fillers: net.Socket[] = [];
    try {
      const blockedPort = await new Promise<number>((resolve) => listener.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
      for (let i = 0; i < 4; i++) fillers.push(net.connect(blockedPort, '127.0.0.1').on('error', () => {}));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      const err = await fetchError(`http://127.0.0.1:${blockedPort}/a.jpg`, opts({ connectTimeoutMs: 300, timeoutMs: 10_000 }));
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain('connecting');
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      for (const socket of fillers) socket.destroy();
      listener.kill();
    }
  });

  it('reports a connection closed before the declared length as a network error', async () => {
    const err = await fetchError(`${base}/cut-short`, opts());
    expect(err.kind).toBe('network');
  });

  it('reports a refused connection as a network error without low-level details', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await fetchError(`http://127.0.0.1:${closedPort}/x.jpg`, opts());
    expect(err.kind).toBe('network');
    expect(err.message).toBe(`connection to 127.0.0.1:${closedPort} refused`);
  });

  it('honours a caller abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await fetchError(`${base}/never-answers`, opts({ signal: controller.signal }));
    expect(err.kind).toBe('network');
    expect(err.message).toContain('cancelled');
  });
});

describe('fetchImage: redirects', () => {
  it('follows a chain of 2 and of 3 redirects and reports the final URL', async () => {
    for (const n of [2, 3]) {
      const image = await fetchImage(`${base}/redirect/${n}`, opts());
      expect(image.finalUrl).toBe(`${base}/photo.jpg`);
      expect(image.format).toBe('jpeg');
    }
  });

  it('refuses a fourth redirect', async () => {
    expect((await fetchError(`${base}/redirect/4`, opts())).kind).toBe('too-many-redirects');
    expect((await fetchError(`${base}/redirect/1`, opts({ maxRedirects: 0 }))).kind).toBe('too-many-redirects');
  });

  it('refuses redirects to file: and other schemes', async () => {
    const file = await fetchError(`${base}/to-file`, opts());
    expect(file.kind).toBe('invalid-url');
    expect(file.message).toContain('file');
    expect((await fetchError(`${base}/to-gopher`, opts())).kind).toBe('invalid-url');
    expect((await fetchError(`${base}/bad-location`, opts())).kind).toBe('invalid-url');
  });
});

describe('fetchImage: URL checks', () => {
  it.each(['', 'not a url', 'ftp://example.com/a.jpg', 'file:///etc/passwd', 'javascript:alert(1)', 'data:image/png;base64,AAAA', 'http://'])(
    'refuses %j as an invalid URL',
    async (url) => {
      expect((await fetchError(url, {})).kind).toBe('invalid-url');
    },
  );
});

describe('fetchImage: SSRF protection (private addresses not allowed)', () => {
  it.each([
    'http://127.0.0.1:PORT/photo.jpg',
    'http://localhost:PORT/photo.jpg',
    'http://[::1]:PORT/photo.jpg',
    'http://[::ffff:127.0.0.1]:PORT/photo.jpg',
    'http://[::ffff:7f00:1]:PORT/photo.jpg',
    'http://[::127.0.0.1]:PORT/photo.jpg',
    'http://2130706433:PORT/photo.jpg',
    'http://0x7f.1:PORT/photo.jpg',
    'http://017700000001:PORT/photo.jpg',
    'http://127.1:PORT/photo.jpg',
    'http://0.0.0.0:PORT/photo.jpg',
    'http://0:PORT/photo.jpg',
    'http://[::]:PORT/photo.jpg',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/a.jpg',
    'http://[fd00::1]/a.jpg',
    'http://10.0.0.1/a.jpg',
    'http://172.16.5.4/a.jpg',
    'http://192.168.1.1/a.jpg',
    'http://100.64.0.1/a.jpg',
    'http://224.0.0.1/a.jpg',
    'http://255.255.255.255/a.jpg',
    'https://[::ffff:a9fe:a9fe]/a.jpg',
    'https://[64:ff9b::7f00:1]/a.jpg',
    'https://[2002:7f00:1::]/a.jpg',
  ])('refuses %s before connecting', async (template) => {
    seen.length = 0;
    const err = await fetchError(template.replace('PORT', String(port)), {});
    expect(err.kind).toBe('forbidden-address');
    expect(seen).toHaveLength(0);
  });

  it('never reaches the server through a fully qualified localhost. (refused, or unknown without DNS)', async () => {
    seen.length = 0;
    const err = await fetchError(`http://LOCALHOST.:${port}/photo.jpg`, {});
    expect(['forbidden-address', 'network']).toContain(err.kind);
    expect(seen).toHaveLength(0);
  });

  // A fake public name: the injected resolver maps it to the test server, and the injected policy treats
  // exactly 127.0.0.1 as public. Everything else follows the real rules.
  const resolveFake = (calls: string[] = []) =>
    async (host: string): Promise<ResolvedAddress[]> => {
      calls.push(host);
      if (host === 'images.iris.test') return [{ address: '127.0.0.1', family: 4 }];
      if (host === 'internal.iris.test') return [{ address: '10.1.2.3', family: 4 }];
      if (host === 'split.iris.test') return [{ address: '127.0.0.1', family: 4 }, { address: '192.168.0.10', family: 4 }];
      if (host.endsWith('.iris.test')) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return defaultDnsResolver(host);
    };
  const fakePublic = (calls?: string[]): Partial<FetchOptions> => ({
    resolve: resolveFake(calls),
    isAllowedAddress: (address) => address === '127.0.0.1',
  });

  it('downloads from an allowed name, connecting to the address that was checked', async () => {
    const calls: string[] = [];
    seen.length = 0;
    const image = await fetchImage(`http://images.iris.test:${port}/photo.jpg`, fakePublic(calls));
    expect(image.format).toBe('jpeg');
    expect(calls).toEqual(['images.iris.test']);
    expect(seen[0]?.host).toBe(`images.iris.test:${port}`);
  });

  it('re-checks a redirect from an allowed server into a private address', async () => {
    seen.length = 0;
    const err = await fetchError(`http://images.iris.test:${port}/to-private`, fakePublic());
    expect(err.kind).toBe('forbidden-address');
    expect(seen).toHaveLength(1);
  });

  it('re-checks a redirect to a name that resolves to a private address, without naming that address', async () => {
    const calls: string[] = [];
    const err = await fetchError(`http://images.iris.test:${port}/to-internal-name`, fakePublic(calls));
    expect(err.kind).toBe('forbidden-address');
    expect(calls).toEqual(['images.iris.test', 'internal.iris.test']);
    expect(err.message).not.toContain('10.1.2.3');
  });

  it('refuses a name with one allowed and one private address', async () => {
    expect((await fetchError(`http://split.iris.test:${port}/photo.jpg`, fakePublic())).kind).toBe('forbidden-address');
  });

  it('refuses a redirect to IPv6 loopback', async () => {
    routes.set('/loopback-alias', { status: 302, headers: { location: `http://[::1]:${port}/photo.jpg` } });
    expect((await fetchError(`http://images.iris.test:${port}/loopback-alias`, fakePublic())).kind).toBe('forbidden-address');
  });

  it('reports an unknown name as a network error and never leaks resolved addresses on connection errors', async () => {
    const unknown = await fetchError('http://nowhere.iris.test/a.jpg', fakePublic());
    expect([unknown.kind, unknown.message]).toEqual(['network', 'host nowhere.iris.test not found']);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await fetchError(`http://images.iris.test:${closedPort}/a.jpg`, fakePublic());
    expect(refused.kind).toBe('network');
    expect(refused.message).toContain('images.iris.test');
    expect(refused.message).not.toContain('127.0.0.1');
  });
});
