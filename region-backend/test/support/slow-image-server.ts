/**
 * A loopback server answering every path with the same JPEG after a delay, counting the requests it serves at
 * once and when each arrived: tests of background work that must yield read the most at once over a phase
 * (`mostOpen`) and the gaps between consecutive requests (`arrivalGaps`, ms), both reset with `resetMost`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowImageServer {
  base: string;
  readonly mostOpen: number;
  readonly arrivalGaps: number[];
  resetMost(): void;
  close(): Promise<void>;
}

export async function startSlowImageServer(jpeg: Buffer, delayMs = 150): Promise<SlowImageServer> {
  let open = 0;
  let most = 0;
  let arrivals: number[] = [];
  const server = http.createServer((_req, res) => {
    arrivals.push(performance.now());
    open++;
    most = Math.max(most, open);
    setTimeout(() => {
      open--;
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': jpeg.length }).end(jpeg);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get mostOpen() {
      return most;
    },
    get arrivalGaps() {
      return arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    },
    resetMost: () => {
      most = 0;
      arrivals = [];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
