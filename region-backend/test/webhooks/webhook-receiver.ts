/**
 * A real HTTP receiver on loopback for webhook tests: records every request it gets, and answers by path:
 * `/ok` 200; `/flaky` 500 until `openGate()`, then 200; `/slow` never (the request stays open until close);
 * `/hang-once` never the first time, 200 afterwards.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  base: string;
  received: Received[];
  /** Requests to /slow that are still open. */
  hanging(): number;
  openGate(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const open = new Set<http.ServerResponse>();
  let gate = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path === '/slow' || (path === '/hang-once' && received.filter((r) => r.path === path).length === 1)) {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      const status = path === '/ok' || path === '/hang-once' || (path === '/flaky' && gate) ? 200 : 500;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    hanging: () => open.size,
    openGate: () => {
      gate = true;
    },
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
