/**
 * Account A's flood for the fairness bench, in its own process: analysis uploads, image-set uploads of 100
 * URLs each and one 300-URL batch task, from IRIS_FLOOD_CALLERS concurrent callers (at most IRIS_FLOOD_RATE
 * calls per second together, when set), until a line arrives on stdin. A's pictures are served from here too,
 * as A's own servers would, so B's timing process does no work for A. Prints `flooding` once started, then A's
 * answer counts as one JSON line.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newResourceId } from '@iris/shared';
import { photoJpeg } from '../test/support/test-images.js';
import { callBackend, fileBody } from '../test/data-sets/child-backend.js';

const A = 101;
const backend = { call: (input: Parameters<typeof callBackend>[1]) => callBackend(process.env.IRIS_FLOOD_BACKEND!, input) };
const FLOODERS = Number(process.env.IRIS_FLOOD_CALLERS ?? 24);
/** Calls per second of all callers together (0: as fast as answers come), e.g. the edge's per-key rate limit. */
const RATE = Number(process.env.IRIS_FLOOD_RATE ?? 0);
let nextCallAt = 0;

/** Waits for the next call's turn under RATE. */
async function paced(): Promise<void> {
  if (!RATE) return;
  const now = performance.now();
  const at = Math.max(now, nextCallAt);
  nextCallAt = at + 1000 / RATE;
  if (at > now) await new Promise((r) => setTimeout(r, at - now));
}

interface FloodCounts {
  ok: number;
  busy: number;
  other: number;
}

async function detect(image: Buffer): Promise<number> {
  const body = fileBody('image', 'q.jpg', image);
  return (await backend.call({ method: 'POST', url: '/detect/_0000049', accountId: A, body: body.payload, headers: body.headers })).status;
}

/** Account A's flood until `stop` resolves: analysis callers, set uploads and one batch task. */
async function flood(image: Buffer, base: string, stop: Promise<void>): Promise<FloodCounts> {
  const counts: FloodCounts = { ok: 0, busy: 0, other: 0 };
  let running = true;
  void stop.then(() => (running = false));
  const count = (status: number) => (status === 200 ? counts.ok++ : status === 503 ? counts.busy++ : counts.other++);
  const setId = newResourceId();
  await backend.call({ method: 'POST', url: '/image_sets/_0000014', accountId: A, resourceId: setId, body: { name: 'flood' } });
  let upload = 0;
  const batchUrls = Array.from({ length: 300 }, (_, i) => `${base}/batch-${i}.jpg`).join('\n');
  const taskId = newResourceId();
  const boundary = `----iris${newResourceId(12)}`;
  const form = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="service_id"\r\n\r\n_0000049\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="urls"; filename="urls.txt"\r\nContent-Type: text/plain\r\n\r\n${batchUrls}\r\n--${boundary}--\r\n`,
  );
  const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  const prepared = await backend.call({ method: 'POST', url: '/batch/_1000001/task/prepare', accountId: A, resourceId: taskId, body: form, headers });
  if (prepared.status !== 200) console.log(`warning: batch prepare answered ${prepared.status}: ${prepared.text.slice(0, 200)}`);
  if (prepared.status === 200) await backend.call({ method: 'POST', url: '/batch/_1000001/task/apply', accountId: A, body: { task_id: taskId } });
  process.stdout.write('flooding\n');
  const callers = Array.from({ length: FLOODERS }, async (_, i) => {
    while (running) {
      await paced();
      if (!running) break;
      if (i % 6 === 5) {
        const n = upload++;
        const csv = Array.from({ length: 100 }, (_, k) => `${base}/set-${n}-${k}.jpg,m`).join('\n');
        const body = fileBody('urls_to_add', 'urls.csv', csv);
        count((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, accountId: A, body: body.payload, headers: body.headers })).status);
      } else {
        count(await detect(image));
      }
    }
  });
  await Promise.all(callers);
  return counts;
}


/** A's picture server on loopback: eight 640×480 photos behind any `/<name>-<n>.jpg`. */
async function pictureServer(): Promise<string> {
  const photos = await Promise.all(Array.from({ length: 8 }, (_, i) => photoJpeg(640, 480, i + 1)));
  const server = http.createServer((req, res) => {
    const photo = photos[Number(/(\d+)\.jpg/.exec(req.url ?? '')?.[1] ?? 0) % photos.length]!;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const stop = new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const counts = await flood(await photoJpeg(640, 480, 3), await pictureServer(), stop);
process.stdout.write(`${JSON.stringify(counts)}\n`);
process.exit(0);
