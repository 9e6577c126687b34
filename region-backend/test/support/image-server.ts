/** A real HTTP server on 127.0.0.1 serving generated images (and whatever else a test registers). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ImageServer {
  url(path: string): string;
  set(path: string, body: Buffer | string, contentType?: string, status?: number): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startImageServer(): Promise<ImageServer> {
  const routes = new Map<string, { body: Buffer; contentType: string; status: number }>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(route.status, { 'content-type': route.contentType, 'content-length': route.body.length }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    set: (path, body, contentType = 'image/jpeg', status = 200) => routes.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body), contentType, status }),
    hits: (path) => counts.get(path) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
