/** The vision services over HTTP: a real backend (PostgreSQL, worker threads) called the way the edge calls it. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestBackend, type TestBackend } from '../../../../test/support/test-app.js';
import { faceRow } from '../../../../test/support/sample-images.js';

describe('vision services over HTTP', () => {
  let backend: TestBackend;
  let photo: Buffer;
  beforeAll(async () => {
    backend = await startTestBackend();
    const row = await faceRow();
    photo = await sharp(row.data, { raw: { width: row.width, height: row.height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  });
  afterAll(async () => {
    await backend?.close();
  });

  const upload = (fields: Record<string, string>, content: Buffer) => multipart({ ...fields, search: { filename: 'q.jpg', content, contentType: 'image/jpeg' } });

  it('detects faces in an uploaded photo, in the detect envelope, with labels in the caller’s language', async () => {
    const mp = upload({}, photo);
    const res = await backend.call({ method: 'POST', url: '/detect/_0000049', payload: mp.payload, headers: mp.headers, lang: 'zh' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ver: '1.0', request_id: expect.any(String), image_id: expect.any(String) });
    for (const key of ['detecttime', 'time', 'get_image_time']) expect(typeof body[key]).toBe('string');
    expect(body.boxes_detected).toHaveLength(5);
    expect(body.boxes_detected[0]).toEqual({ box: [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)], puid: 'face.face', score: expect.any(Number), type: '人脸' });
  });

  it('maps boxes of a loc crop back onto the whole picture', async () => {
    const mp = upload({ loc: '0-0-0.4-1' }, photo);
    const res = await backend.call({ method: 'POST', url: '/detect/_0000049', payload: mp.payload, headers: mp.headers });
    const boxes = res.json().boxes_detected as { box: number[] }[];
    expect(boxes).toHaveLength(2);
    for (const { box } of boxes) expect(box[0]! + box[2]!).toBeLessThanOrEqual(0.4001);
  });

  it('refuses a picture smaller than 16 pixels per side with 400008', async () => {
    const tiny = await sharp({ create: { width: 12, height: 40, channels: 3, background: '#888' } }).jpeg().toBuffer();
    const mp = upload({}, tiny);
    const res = await backend.call({ method: 'POST', url: '/detect/_0000059', payload: mp.payload, headers: mp.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.error_code).toBe(400008);
  });

  it('classifies pornography in the classify envelope and tags with count, refusing a bad count', async () => {
    const mp = upload({}, photo);
    const porn = await backend.call({ method: 'POST', url: '/classify_porn/_0000024', payload: mp.payload, headers: mp.headers });
    expect(porn.statusCode).toBe(200);
    expect(porn.json()).toMatchObject({ is_err: 0, version: '1.0', classify_time: expect.any(String) });
    expect(porn.json().results.map((r: { category: string }) => r.category)).toEqual(['Non-porn', 'Porn']);

    const tags = upload({ count: '2' }, photo);
    const tagged = await backend.call({ method: 'POST', url: '/classify/_0000159', payload: tags.payload, headers: tags.headers });
    expect(tagged.statusCode).toBe(200);
    expect(tagged.json()).toMatchObject({ is_err: 0, time: expect.any(Number) });
    expect(tagged.json().results).toHaveLength(2);

    const bad = upload({ count: 'many' }, photo);
    const refused = await backend.call({ method: 'POST', url: '/classify/_0000159', payload: bad.payload, headers: bad.headers });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().data.is_err).toBe(1);
  });
});
