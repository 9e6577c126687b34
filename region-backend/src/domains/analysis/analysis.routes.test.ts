import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../../../test/support/test-app.js';

/** Left half pure red, right half pure blue. */
async function halfAndHalf(): Promise<Buffer> {
  const width = 200;
  const height = 100;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(x < width / 2 ? [255, 0, 0] : [0, 0, 255], (y * width + x) * 3);
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

describe('analysis routes', () => {
  let backend: TestBackend;
  let images: ImageServer;
  beforeAll(async () => {
    [backend, images] = await Promise.all([startTestBackend(), startImageServer()]);
    images.set('/half.png', await halfAndHalf(), 'image/png');
    images.set('/page.html', '<html>not an image</html>', 'image/jpeg');
  });
  afterAll(async () => {
    await Promise.all([backend?.close(), images?.close()]);
  });

  const form = (fields: Record<string, string>) => ({
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

  it('runs a colour service from a URL and wraps it in the colour envelope', async () => {
    const res = await backend.call({ method: 'POST', url: '/color/_0000072', ...form({ url: images.url('/half.png'), granularity: 'major', return_type: 'basic' }) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ is_err: 0, request_id: expect.any(String) });
    expect(typeof body.time).toBe('number');
    const hexes = body.results.map((r: { hex: string }) => r.hex.toLowerCase()).sort();
    expect(hexes).toEqual(['#0000ff', '#ff0000']);
    const total = body.results.reduce((s: number, r: { freq: number }) => s + r.freq, 0);
    expect(total).toBeCloseTo(1, 5);
  });

  it('crops to loc before analysing, and routes on the id whatever the type word', async () => {
    const res = await backend.call({ method: 'POST', url: '/image_analysis_everything/_0000072', ...form({ url: images.url('/half.png'), granularity: 'dominant', return_type: 'basic', loc: '0-0-0.4-1' }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toHaveLength(1);
    expect(res.json().results[0].hex.toLowerCase()).toBe('#ff0000');
  });

  it('accepts an uploaded search file', async () => {
    const mp = multipart({ granularity: 'dominant', return_type: 'w3c', search: { filename: 'q.png', content: await halfAndHalf(), contentType: 'image/png' } });
    const res = await backend.call({ method: 'POST', url: '/color/_0000072', payload: mp.payload, headers: mp.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0]).toHaveProperty('w3c');
    // Where the call's time went: body, decode, the wait for a thread and the time on it, the whole.
    const stages = String(res.headers['server-timing']).split(', ').map((s) => s.split(';dur=')[0]);
    expect(stages).toEqual(['body', 'decode', 'queue', 'thread', 'backend']);
  });

  it('answers image problems with each family’s codes', async () => {
    const none = await backend.call({ method: 'POST', url: '/color/_0000072', ...form({ granularity: 'major', return_type: 'basic' }) });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ status: 400, data: { is_err: 1 } });
    // Colour and fashion errors are told apart by HTTP status only.
    expect(none.json().data).not.toHaveProperty('error_code');

    const html = await backend.call({ method: 'POST', url: '/color/_0000072', ...form({ url: images.url('/page.html'), granularity: 'major', return_type: 'basic' }) });
    expect(html.statusCode).toBe(408);
    expect(html.json()).toMatchObject({ status: 408, data: { is_err: 1, time: expect.any(Number) } });
    expect(html.json().data).not.toHaveProperty('error_code');

    const badGranularity = await backend.call({ method: 'POST', url: '/color/_0000072', ...form({ url: images.url('/half.png'), granularity: 'sparkly', return_type: 'basic' }) });
    expect(badGranularity.statusCode).toBe(400);
    expect(badGranularity.json().data).not.toHaveProperty('error_code');

    const dressingNone = await backend.call({ method: 'POST', url: '/dressing/_0000111', ...form({}) });
    expect(dressingNone.statusCode).toBe(400);
    expect(dressingNone.json()).toMatchObject({ status: 400, data: { is_err: 1 } });
    expect(dressingNone.json().data).not.toHaveProperty('error_code');

    const detectNone = await backend.call({ method: 'POST', url: '/detect/_0000049', ...form({}) });
    expect(detectNone.statusCode).toBe(400);
    expect(detectNone.json().data.error_code).toBe(400003);

    const detectMissing = await backend.call({ method: 'POST', url: '/detect/_0000049', ...form({ url: images.url('/missing.jpg') }) });
    expect(detectMissing.json().data.error_code).toBe(400004);

    const detectHtml = await backend.call({ method: 'POST', url: '/detect/_0000049', ...form({ url: images.url('/page.html') }) });
    expect(detectHtml.json().data.error_code).toBe(400004);

    const badLoc = await backend.call({ method: 'POST', url: '/color/_0000072', ...form({ url: images.url('/half.png'), granularity: 'major', return_type: 'basic', loc: '0.5-0.5-0.9-0.9' }) });
    expect(badLoc.statusCode).toBe(400);

    const unknown = await backend.call({ method: 'POST', url: '/detect/_0009999', ...form({ url: images.url('/half.png') }) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, data: { is_err: 1, error_code: 1001 } });
  });
});
