/**
 * A custom classifier as a batch service: trained for real (two shape families, 50 images each, the real
 * training job), listed among the batch services while it runs, run over a URL list with the classify
 * envelope per line, and a task whose classifier is deleted before it runs ends in FAILURE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { shapeImage, type ShapeFamily } from '../support/shape-images.js';
import { startImageServer, type ImageServer } from '../support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { apply, expectBatchError, jsonLines, linkPath, prepare, waitForState } from './batch-helpers.js';

process.env.IRIS_TRAINING_WAIT_MS = '300';
process.env.IRIS_TRAINING_POLL_MS = '2000';

const FAMILIES: ShapeFamily[] = ['disc', 'stripes'];
const PER_LABEL = 50;

describe('custom classifiers in batch tasks', () => {
  let backend: TestBackend;
  let images: ImageServer;
  let serviceId: string;

  async function serve(family: ShapeFamily, from: number, count: number): Promise<string[]> {
    const urls: string[] = [];
    for (let i = from; i < from + count; i++) {
      const path = `/img/${family}/${i}.jpg`;
      images.set(path, await shapeImage(family, i));
      urls.push(images.url(path));
    }
    return urls;
  }

  async function trainService(): Promise<string> {
    const setId = newResourceId();
    expect((await backend.call({ method: 'POST', url: '/custom_training/_0000194/training_sets', resourceId: setId, payload: { name: 'shapes', description: 'two shapes' } })).statusCode).toBe(200);
    const rows: string[] = [];
    for (const family of FAMILIES) for (const url of await serve(family, 0, PER_LABEL)) rows.push(`${url},${family}`);
    const upload = multipart({ urls_to_add: { filename: 'data.csv', content: rows.join('\n') } });
    expect((await backend.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/images`, payload: upload.payload, headers: upload.headers })).statusCode).toBe(200);
    const id = newResourceId();
    const created = await backend.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/services`, resourceId: id, payload: { name: 'shapes', description: 'd', scenario: 'classifier' } });
    expect(created.statusCode).toBe(200);
    // Not running yet: it exists, but is not a batch service.
    expectBatchError(await prepare(backend, id, `${images.url('/a.jpg')}\n${images.url('/b.jpg')}`), 400008);
    const until = Date.now() + 240_000;
    for (;;) {
      const status = (await backend.call({ method: 'GET', url: `/custom_training/_0000194/services/${id}` })).json().status as string;
      if (status === 'running') return id;
      if (status === 'failed' || Date.now() > until) throw new Error(`training ended ${status}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  beforeAll(async () => {
    images = await startImageServer();
    backend = await startTestBackend();
    serviceId = await trainService();
  }, 300_000);
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  it('lists the running classifier only for its account', async () => {
    expect((await backend.call({ method: 'GET', url: '/batch/_1000001/services' })).json().data).toContain(serviceId);
    expect((await backend.call({ method: 'GET', url: '/batch/_1000001/services', accountId: 2 })).json().data).not.toContain(serviceId);
    expectBatchError(await prepare(backend, serviceId, `${images.url('/a.jpg')}\n${images.url('/b.jpg')}`, { accountId: 2 }), 400007);
  });

  it('classifies every URL with the classifier envelope; topk is checked at prepare', async () => {
    expectBatchError(await prepare(backend, serviceId, `${images.url('/a.jpg')}\n${images.url('/b.jpg')}`, { extra: { topk: 'zero' } }), 1111);
    const discs = await serve('disc', 500, 2);
    const stripes = await serve('stripes', 500, 2);
    const urls = [discs[0]!, stripes[0]!, images.url('/nothing.jpg'), discs[1]!, stripes[1]!];
    const prepared = await prepare(backend, serviceId, urls.join('\n'), { extra: { topk: '1' } });
    expect(prepared.statusCode).toBe(200);
    expect((await apply(backend, prepared.taskId)).statusCode).toBe(200);
    const done = await waitForState(backend, prepared.taskId, ['SUCCESS', 'FAILURE']);
    expect(done).toMatchObject({ state: 'SUCCESS', total: 5, success: 5 });
    const lines = jsonLines((await backend.call({ method: 'GET', url: linkPath(done.download_urls![0]!) })).payload);
    expect(lines.map((l) => l.url)).toEqual(urls);
    const categories = lines.map((l) => (l.result as { results?: { category: string }[] } | undefined)?.results?.[0]?.category ?? null);
    expect(categories).toEqual(['disc', 'stripes', null, 'disc', 'stripes']);
    for (const line of lines.filter((l) => l.result)) {
      expect(Object.keys(line.result!).sort()).toEqual(['classify_time', 'is_err', 'request_id', 'results', 'version']);
      expect((line.result as { results: unknown[] }).results).toHaveLength(1);
    }
    expect(lines[2]!.error).toMatchObject({ error_code: 400004 });
  }, 120_000);

  it('fails a task whose classifier is deleted before it runs; the id is then unknown', async () => {
    const urls = await serve('disc', 600, 2);
    const prepared = await prepare(backend, serviceId, urls.join('\n'));
    expect(prepared.statusCode).toBe(200);
    expect((await backend.call({ method: 'DELETE', url: `/custom_training/_0000194/services/${serviceId}` })).statusCode).toBe(200);
    expect((await apply(backend, prepared.taskId)).statusCode).toBe(200);
    expect((await waitForState(backend, prepared.taskId, ['SUCCESS', 'FAILURE'])).state).toBe('FAILURE');
    expectBatchError(await prepare(backend, serviceId, urls.join('\n')), 400007);
    expect((await backend.call({ method: 'GET', url: '/batch/_1000001/services' })).json().data).not.toContain(serviceId);
  });
});
