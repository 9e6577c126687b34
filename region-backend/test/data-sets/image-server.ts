/**
 * A loopback HTTP server serving real images made with sharp (JPEG, PNG, WebP, GIF) and bad ones:
 * truncated, HTML sent as image/jpeg, a PNG declaring 30000×30000 pixels, 404, 503, flaky and slow URLs.
 * It counts requests per path, so tests can tell whether a URL was downloaded again.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import sharp from 'sharp';

export interface ImageServer {
  base: string;
  /** Requests seen per path (without the query string). */
  hits: Map<string, number>;
  /** Paths of images that all differ in content: `/img/<n>.<ext>`. */
  url(n: number, ext?: 'jpg' | 'png' | 'webp' | 'gif'): string;
  close(): Promise<void>;
}

const PALETTE_SIZE = 64;

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A valid PNG header that declares a huge canvas, with a few bytes of pixel data: decoding must refuse it. */
export function hugePng(width = 30000, height = 30000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

async function makeImage(n: number, format: 'jpeg' | 'png' | 'webp' | 'gif'): Promise<Buffer> {
  const colour = { r: (n * 37) % 256, g: (n * 91) % 256, b: (n * 151) % 256 };
  const base = sharp({ create: { width: 96 + (n % 7), height: 64 + (n % 5), channels: 3, background: colour } });
  // A small stripe so images of one colour still differ in content.
  const stripe = await sharp({ create: { width: 8 + (n % 40), height: 8, channels: 3, background: { r: 255 - colour.r, g: 255 - colour.g, b: 255 - colour.b } } }).png().toBuffer();
  return base.composite([{ input: stripe, left: 2, top: 2 }]).toFormat(format).toBuffer();
}

const TYPES = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' } as const;
const FORMATS = { jpg: 'jpeg', png: 'png', webp: 'webp', gif: 'gif' } as const;

export async function startImageServer(options: { slowMs?: number; delayMs?: number } = {}): Promise<ImageServer> {
  const images = new Map<string, Buffer>();
  for (const ext of Object.keys(TYPES) as (keyof typeof TYPES)[]) {
    for (let i = 0; i < PALETTE_SIZE; i++) images.set(`${ext}:${i}`, await makeImage(i, FORMATS[ext]));
  }
  const goodJpeg = images.get('jpg:1')!;
  const truncated = goodJpeg.subarray(0, Math.floor(goodJpeg.length / 2));
  const huge = hugePng();
  // About 150 KB of noise: larger than a small IRIS_FETCH_MAX_BYTES.
  const big = await sharp(Buffer.from(Array.from({ length: 256 * 256 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 256, height: 256, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const hits = new Map<string, number>();
  const flakyCounts = new Map<string, number>();
  const slowMs = options.slowMs ?? 5000;
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const send = (status: number, type: string, body: Buffer | string) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    let match = /^\/img\/(\d+)\.(jpg|png|webp|gif)$/.exec(path);
    if (match) {
      const n = Number(match[1]);
      const ext = match[2] as keyof typeof TYPES;
      const body = images.get(`${ext}:${n % PALETTE_SIZE}`)!;
      if (!options.delayMs) return send(200, TYPES[ext], body);
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(200, TYPES[ext], body);
      }, options.delayMs);
      timers.add(timer);
      return;
    }
    // /flaky/<name>/<failures>: answers 503 that many times, then an image.
    match = /^\/flaky\/([\w-]+)\/(\d+)$/.exec(path);
    if (match) {
      const seen = (flakyCounts.get(path) ?? 0) + 1;
      flakyCounts.set(path, seen);
      return seen <= Number(match[2]) ? send(503, 'text/plain', 'busy') : send(200, 'image/png', images.get('png:3')!);
    }
    switch (path) {
      case '/bad/truncated.jpg':
        return send(200, 'image/jpeg', truncated);
      case '/bad/page.jpg':
        return send(200, 'image/jpeg', '<!doctype html><html><body>not an image</body></html>');
      case '/bad/huge.png':
        return send(200, 'image/png', huge);
      case '/big.png':
        return send(200, 'image/png', big);
      case '/status/503':
        return send(503, 'text/plain', 'unavailable');
      case '/slow.jpg': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(200, 'image/jpeg', goodJpeg);
        }, slowMs);
        timers.add(timer);
        return;
      }
      default:
        return send(404, 'text/plain', 'not found');
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    hits,
    url: (n, ext = 'jpg') => `${base}/img/${n}.${ext}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
