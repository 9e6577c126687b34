/**
 * One account floods a backend with each kind of attack at once — analysis calls beyond its queue, uploads
 * beyond its share, record adds beyond its quotas, bad-case reports beyond its daily quota — while another
 * account's ordinary calls keep answering normally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS } from '@iris/shared';
import { photoJpeg } from '../support/test-images.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload } from '../data-sets/helpers.js';
import { startImageServer, type ImageServer } from '../data-sets/image-server.js';

const A = 81;
const B = 82;

describe('one account flooding', () => {
  let backend: TestBackend;
  let images: ImageServer;
  let photo: Buffer;

  beforeAll(async () => {
    images = await startImageServer();
    photo = await photoJpeg(640, 480, 3);
    backend = await startTestBackend({ IRIS_INFERENCE_THREADS: '2', IRIS_ACCOUNT_INFERENCE_QUEUE: '4', IRIS_ACCOUNT_UPLOADS: '3' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const detect = (accountId: number) => {
    const body = multipart({ image: { filename: 'q.jpg', content: photo, contentType: 'image/jpeg' } });
    return backend.call({ method: 'POST', url: '/detect/_0000049', accountId, payload: body.payload, headers: body.headers });
  };

  it("keeps the other account's calls working and refuses the flood in the right shapes", async () => {
    expect((await detect(B)).statusCode).toBe(200); // models loaded
    const quotas = { ...DEFAULT_QUOTAS, recordsPerSet: 5, dailyBadCases: 3 };
    const floodSet = await createImageSet(backend, 'flood', A);
    const addTooMany = () => {
      const upload = fileUpload('urls_to_add', Array.from({ length: 10 }, (_, i) => `${images.url(i)},m`).join('\n'));
      return backend.call({ method: 'POST', url: `/image_sets/_0000014/${floodSet}`, accountId: A, quotas, payload: upload.payload, headers: upload.headers });
    };
    const report = () => backend.call({ method: 'POST', url: '/bad_cases/_0000204', accountId: A, quotas, payload: { service_id: '_0000049', request_id: 'x' } });

    const flood = Promise.all([
      ...Array.from({ length: 24 }, () => detect(A)),
      ...Array.from({ length: 4 }, () => addTooMany()),
      ...Array.from({ length: 6 }, () => report()),
    ]);
    const bStatuses: number[] = [];
    for (let i = 0; i < 5; i++) bStatuses.push((await detect(B)).statusCode);
    const setB = await createImageSet(backend, 'ordinary', B);
    const addB = fileUpload('urls_to_add', `${images.url(1)},m\n${images.url(2)},m`);
    const added = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setB}`, accountId: B, payload: addB.payload, headers: addB.headers });
    const answers = await flood;

    expect(bStatuses).toEqual([200, 200, 200, 200, 200]);
    expect(added.statusCode).toBe(200);
    const detectA = answers.slice(0, 24);
    // Inject calls do not stream bodies slowly, so the analysis flood meets the queue (and upload) limits.
    expect(detectA.filter((r) => r.statusCode === 503).length).toBeGreaterThan(0);
    for (const r of detectA.filter((x) => x.statusCode === 503)) expect(r.json()).toMatchObject({ data: { is_err: 1, error_code: 9006 }, status: 503 });
    expect(detectA.every((r) => r.statusCode === 200 || r.statusCode === 503)).toBe(true);
    const adds = answers.slice(24, 28);
    // Over the record quota (or, while its uploads are in flight, over its upload share): nothing added.
    for (const r of adds) expect([[403, 3008], [503, undefined]]).toContainEqual([r.statusCode, r.statusCode === 503 ? undefined : r.json().error_code]);
    const held = await backend.app.db.pool.query('SELECT count(*) AS n FROM data_set_records WHERE set_id = $1', [floodSet]);
    expect(Number(held.rows[0].n)).toBe(0);
    const reports = answers.slice(28);
    expect(reports.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(3);
    expect(reports.filter((r) => r.statusCode === 403).length).toBeGreaterThanOrEqual(3);
  }, 180_000);
});
