/**
 * Custom training end to end through the backend's HTTP API: training sets of generated images served by a
 * loopback server, services trained by the real job (real PostgreSQL, pg-boss, worker threads and model),
 * inference, failures with their messages, rename / delete, and the training set's "in use" rule.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../../../test/support/test-app.js';
import { clearToken } from '../training-sets/training-set.service.js';
import { labelPuid } from './classifier-inference.js';
import { updateTrainingProgress } from './custom-service.repo.js';
import { CustomServiceService } from './custom-service.service.js';
import type { CustomServiceObject } from './custom-service-view.js';
import { shapeImage, type ShapeFamily } from './testing/shape-images.js';

process.env.IRIS_TRAINING_WAIT_MS = '300';
process.env.IRIS_TRAINING_POLL_MS = '2000';

const FAMILIES: ShapeFamily[] = ['disc', 'square', 'stripes'];
const PER_LABEL = 50;

describe('custom training', () => {
  let backend: TestBackend;
  let images: ImageServer;

  const call = (method: string, url: string, payload?: object | Buffer | string, headers?: Record<string, string>, resourceId?: string) =>
    backend.call({ method, url, ...(payload !== undefined ? { payload } : {}), ...(headers ? { headers } : {}), ...(resourceId ? { resourceId } : {}) });

  /** Serves `count` images of a family under /img/<family>/<i>.jpg, starting at `from`. */
  async function serve(family: ShapeFamily, count: number, from = 0): Promise<string[]> {
    const urls: string[] = [];
    for (let i = from; i < from + count; i++) {
      const path = `/img/${family}/${i}.jpg`;
      images.set(path, await shapeImage(family, i));
      urls.push(images.url(path));
    }
    return urls;
  }

  async function trainingSet(rows: [string, string][]): Promise<string> {
    const id = newResourceId();
    expect((await call('POST', '/custom_training/_0000194/training_sets', { name: 'shapes', description: 'generated' }, undefined, id)).statusCode).toBe(200);
    const upload = multipart({ urls_to_add: { filename: 'data.csv', content: rows.map(([url, label]) => `${url},${label}`).join('\n') } });
    const added = await call('POST', `/custom_training/_0000194/training_sets/${id}/images`, upload.payload, upload.headers);
    expect(added.statusCode).toBe(200);
    return id;
  }

  async function createService(setId: string, fields: Record<string, string> = { name: 'shapes', description: 'three shapes', scenario: 'classifier' }) {
    const id = newResourceId();
    const res = await call('POST', `/custom_training/_0000194/training_sets/${setId}/services`, fields, undefined, id);
    return { id, res };
  }

  async function waitFor(id: string, done: (s: CustomServiceObject) => boolean, timeoutMs = 240_000): Promise<{ final: CustomServiceObject; seen: Set<string> }> {
    const seen = new Set<string>();
    const until = Date.now() + timeoutMs;
    for (;;) {
      const res = await call('GET', `/custom_training/_0000194/services/${id}`);
      expect(res.statusCode).toBe(200);
      const s = res.json() as CustomServiceObject;
      seen.add(s.status);
      if (done(s)) return { final: s, seen };
      if (Date.now() > until) throw new Error(`service ${id} did not finish: ${res.body}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  let shapesSet: string;
  let serviceId: string;
  let urlsByFamily: Record<string, string[]>;

  beforeAll(async () => {
    images = await startImageServer();
    backend = await startTestBackend();
    urlsByFamily = {};
    for (const family of FAMILIES) urlsByFamily[family] = await serve(family, PER_LABEL);
    shapesSet = await trainingSet(FAMILIES.flatMap((f) => urlsByFamily[f]!.map((url) => [url, f] as [string, string])));
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  it('trains a classifier: pending at creation, preparing, then running with accuracy and label counts', async () => {
    const { id, res } = await createService(shapesSet);
    serviceId = id;
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(String(res.headers['x-iris-registry']))).toEqual({ live: [id] });
    const created = res.json() as CustomServiceObject;
    expect(created).toMatchObject({ id, name: 'shapes', description: 'three shapes', scenario: 'classifier', status: 'pending', training_set_id: shapesSet, creator_id: 1 });
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.last_updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created).not.toHaveProperty('message');
    expect(typeof created.request_id).toBe('string');

    const { final, seen } = await waitFor(id, (s) => s.status === 'running' || s.status === 'failed');
    expect(final.status).toBe('running');
    expect(seen.has('preparing')).toBe(true);
    expect(final).not.toHaveProperty('message');
    expect(final.label_counts).toEqual({ disc: 50, square: 50, stripes: 50 });
    expect(final.validation_accuracy).toBeGreaterThanOrEqual(0.9);
    expect(final.progress).toBe(1);
    expect(final.stage).toBe('done');
    // Every held-out image in the row of its label: 10 per label (20 % of 50), nearly all on the diagonal.
    expect(final.confusion_matrix!.labels).toEqual(FAMILIES);
    expect(final.confusion_matrix!.counts.map((row) => row.reduce((a, b) => a + b, 0))).toEqual([10, 10, 10]);
    expect(created.confusion_matrix).toBeNull();
  }, 300_000);

  it('stores the confusion matrix of the validation split: counts sum to the validation size and agree with the accuracy', async () => {
    // Discs and squares labelled a or b alternately (a classifier cannot tell them apart), stripes c. The
    // images' features are already stored, so only the fitting runs.
    const rows = [...urlsByFamily.disc!, ...urlsByFamily.square!].map((url, i) => [url, i % 2 ? 'b' : 'a'] as [string, string]);
    const setId = await trainingSet([...rows, ...urlsByFamily.stripes!.map((url) => [url, 'c'] as [string, string])]);
    const { id } = await createService(setId, { name: 'mixed', scenario: 'classifier' });
    const { final } = await waitFor(id, (s) => s.status === 'running' || s.status === 'failed');
    expect(final.status).toBe('running');
    const { labels, counts } = final.confusion_matrix!;
    expect(labels).toEqual(['a', 'b', 'c']);
    const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
    const report = (await backend.app.db.pool.query('SELECT report FROM custom_service_models WHERE service_id = $1', [id])).rows[0].report;
    expect(sum(counts.map(sum))).toBe(report.validation_images);
    expect(counts.map(sum)).toEqual([10, 10, 10]);
    expect(counts.map((row, t) => row[t])).toEqual(labels.map((l) => report.per_label[l].validationCorrect));
    expect(final.validation_accuracy).toBeCloseTo(sum(counts.map((row, t) => row[t]!)) / sum(counts.map(sum)), 4);
    // a and b are confused with each other, never with c; c is always right.
    expect(counts[0]![1]! + counts[1]![0]!).toBeGreaterThan(0);
    expect([counts[0]![2], counts[1]![2], counts[2]![0], counts[2]![1]]).toEqual([0, 0, 0, 0]);
    // Stored with the service: the list leaves it out, the service's own answer carries it.
    const list = (await call('GET', '/custom_training/_0000194/services')).json() as { results: CustomServiceObject[] };
    expect(list.results.find((s) => s.id === id)).not.toHaveProperty('confusion_matrix');
    const stored = await backend.app.db.pool.query('SELECT confusion_matrix FROM custom_services WHERE id = $1', [id]);
    expect(stored.rows[0].confusion_matrix).toEqual({ labels, counts });
    await call('DELETE', `/custom_training/_0000194/services/${id}`);
    expect((await call('DELETE', `/custom_training/_0000194/training_sets/${setId}`)).statusCode).toBe(200);
  }, 300_000);

  it('answers pending at creation even when a worker starts the run at once', async () => {
    const pool = backend.app.db.pool;
    // A runner whose worker picks the run up before creation has answered.
    const eager = { enqueue: async (id: string) => void (await updateTrainingProgress(pool, id, 'downloading', 0)) };
    const services = new CustomServiceService({ pool, runner: eager, log: backend.app.log });
    const created = await services.create(1, newResourceId(), shapesSet, { name: 'eager', scenario: 'classifier' });
    expect(created.status).toBe('pending');
    expect((await services.get(1, created.id)).status).toBe('preparing');
    await services.delete(1, created.id);
  });

  it('classifies new images: right label first, probabilities summing to 1, topk, url or upload', async () => {
    for (const family of FAMILIES) {
      const [url] = await serve(family, 1, 1000);
      const res = await call('POST', `/custom_training/${serviceId}`, `url=${encodeURIComponent(url!)}&topk=10`, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { classify_time: string; is_err: number; request_id: string; results: { category: string; puid: string; score: number }[]; version: string };
      expect(Object.keys(body).sort()).toEqual(['classify_time', 'is_err', 'request_id', 'results', 'version']);
      expect(body.is_err).toBe(0);
      expect(body.results).toHaveLength(3);
      expect(body.results[0]!.category).toBe(family);
      expect(body.results[0]!.puid).toBe(labelPuid(family));
      expect(body.results.reduce((sum, r) => sum + r.score, 0)).toBeCloseTo(1, 4);
      expect(body.results.map((r) => r.score)).toEqual([...body.results.map((r) => r.score)].sort((a, b) => b - a));
    }
    const bytes = await shapeImage('square', 2000);
    for (const field of ['search', 'image']) {
      const upload = multipart({ [field]: { filename: 'q.jpg', content: bytes, contentType: 'image/jpeg' }, topk: '1' });
      const res = await call('POST', `/custom_training/${serviceId}`, upload.payload, upload.headers);
      expect(res.statusCode).toBe(200);
      const results = (res.json() as { results: { category: string; score: number }[] }).results;
      expect(results).toHaveLength(1);
      expect(results[0]!.category).toBe('square');
    }
    const [discUrl] = await serve('disc', 1, 3000);
    const byJson = await call('POST', `/custom_training/${serviceId}/`, { image_url: discUrl });
    expect(byJson.statusCode).toBe(200);
    expect((byJson.json() as { results: unknown[] }).results).toHaveLength(3);
  }, 120_000);

  it('answers inference errors in the analysis shape', async () => {
    const unknown = await call('POST', `/custom_training/${newResourceId()}`, { url: 'http://127.0.0.1/x.jpg' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ data: { is_err: 1, error_code: 2002 }, status: 404 });

    const noImage = await call('POST', `/custom_training/${serviceId}`, { topk: '2' });
    expect(noImage.statusCode).toBe(400);
    expect(noImage.json()).toMatchObject({ data: { is_err: 1, error_code: 400003 }, status: 400 });

    const garbage = multipart({ search: { filename: 'q.jpg', content: Buffer.from('not an image at all'), contentType: 'image/jpeg' } });
    const undecodable = await call('POST', `/custom_training/${serviceId}`, garbage.payload, garbage.headers);
    expect(undecodable.statusCode).toBe(400);
    expect(undecodable.json()).toMatchObject({ data: { is_err: 1, error_code: 400002 } });

    const missing = await call('POST', `/custom_training/${serviceId}`, { url: images.url('/nothing-here.jpg') });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ data: { is_err: 1, error_code: 400004 } });

    const badTopk = await call('POST', `/custom_training/${serviceId}`, { url: urlsByFamily.disc![0], topk: 'zero' });
    expect(badTopk.statusCode).toBe(400);
    expect(badTopk.json()).toMatchObject({ data: { is_err: 1 } });
  });

  it('refuses to delete, clear or remove data of a training set in use (403/3001)', async () => {
    const del = await call('DELETE', `/custom_training/_0000194/training_sets/${shapesSet}`);
    expect(del.statusCode).toBe(403);
    expect(del.json()).toMatchObject({ error_code: 3001 });
    const clear = await call('DELETE', `/custom_training/_0000194/training_sets/${shapesSet}/clear`, { name: 'shapes', training_set_id: shapesSet, token: clearToken('shapes') });
    expect(clear.statusCode).toBe(403);
    expect(clear.json()).toMatchObject({ error_code: 3001 });
    const upload = multipart({ urls_to_delete: { filename: 'd.csv', content: urlsByFamily.disc![0]! } });
    const remove = await call('DELETE', `/custom_training/_0000194/training_sets/${shapesSet}/images`, upload.payload, upload.headers);
    expect(remove.statusCode).toBe(403);
    expect(remove.json()).toMatchObject({ error_code: 3001 });
  });

  it('validates creation: unknown training set, scenario, name', async () => {
    expect((await createService(newResourceId())).res.json()).toMatchObject({ error_code: 2001 });
    const noScenario = await createService(shapesSet, { name: 'x' });
    expect(noScenario.res.statusCode).toBe(400);
    expect(noScenario.res.json()).toMatchObject({ error_code: 2003 });
    const wrong = await createService(shapesSet, { name: 'x', scenario: 'detector' });
    expect(wrong.res.statusCode).toBe(400);
    expect(wrong.res.json()).toMatchObject({ error_code: 2003 });
    const noName = await createService(shapesSet, { scenario: 'classifier' });
    expect(noName.res.statusCode).toBe(400);
    expect(noName.res.json()).toMatchObject({ error_code: 5001 });
    const list = (await call('GET', '/custom_training/_0000194/services')).json() as { results: CustomServiceObject[] };
    expect(list.results.map((s) => s.id)).toEqual([serviceId]);
  });

  it('fails with a message naming labels with too few images, and with only one label', async () => {
    const fewSet = await trainingSet([
      ...urlsByFamily.disc!.map((u) => [u, 'disc'] as [string, string]),
      ...urlsByFamily.square!.slice(0, 20).map((u) => [u, 'square'] as [string, string]),
      ...urlsByFamily.stripes!.slice(0, 7).map((u) => [u, 'stripes'] as [string, string]),
    ]);
    const oneSet = await trainingSet(urlsByFamily.stripes!.map((u) => [u, 'stripes'] as [string, string]));
    const few = await createService(fewSet, { name: 'few', scenario: 'Classifier' });
    const one = await createService(oneSet, { name: 'one', scenario: 'classifier' });
    expect(few.res.statusCode).toBe(200);
    expect(one.res.statusCode).toBe(200);

    const fewEnd = (await waitFor(few.id, (s) => s.status === 'failed' || s.status === 'running')).final;
    expect(fewEnd.status).toBe('failed');
    expect(fewEnd.message).toBe('labels with fewer than 50 usable images: stripes (7), square (20)');
    expect(fewEnd.label_counts).toEqual({ disc: 50, square: 20, stripes: 7 });
    expect(fewEnd.validation_accuracy).toBeNull();

    const oneEnd = (await waitFor(one.id, (s) => s.status === 'failed' || s.status === 'running')).final;
    expect(oneEnd.status).toBe('failed');
    expect(oneEnd.message).toContain('only one label (stripes)');

    const inference = await call('POST', `/custom_training/${one.id}`, { url: urlsByFamily.disc![0] });
    expect(inference.statusCode).toBe(400);
    expect(inference.json()).toMatchObject({ data: { is_err: 1, error_code: 9005 } });

    // A failed service does not hold its training set.
    expect((await call('DELETE', `/custom_training/_0000194/training_sets/${oneSet}`)).statusCode).toBe(200);
  }, 120_000);

  it('fails when too many downloads fail', async () => {
    const broken = Array.from({ length: 30 }, (_, i) => [images.url(`/missing/${i}.jpg`), 'square'] as [string, string]);
    const setId = await trainingSet([
      ...urlsByFamily.disc!.map((u) => [u, 'disc'] as [string, string]),
      ...urlsByFamily.square!.map((u) => [u, 'square'] as [string, string]),
      ...broken,
    ]);
    const { id } = await createService(setId, { name: 'broken', scenario: 'classifier' });
    const end = (await waitFor(id, (s) => s.status === 'failed' || s.status === 'running')).final;
    expect(end.status).toBe('failed');
    expect(end.message).toBe('30 of 130 images (23.1%) could not be downloaded; at most 20% may fail');
  }, 120_000);

  it('answers 400/9005 while a service is not trained yet, and stops its run when deleted', async () => {
    // A server that accepts connections and never answers: the set's downloads stay unfinished.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const setId = await trainingSet(FAMILIES.flatMap((f) => Array.from({ length: 3 }, (_, i) => [`http://127.0.0.1:${port}/${f}/${i}.jpg`, f] as [string, string])));
      const { id } = await createService(setId, { name: 'waiting', scenario: 'classifier' });
      const waiting = (await waitFor(id, (s) => s.stage === 'downloading', 30_000)).final;
      expect(waiting).toMatchObject({ status: 'preparing', label_counts: {} });
      const res = await call('POST', `/custom_training/${id}`, { url: urlsByFamily.disc![0] });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ data: { is_err: 1, error_code: 9005 }, status: 400 });
      expect((await call('DELETE', `/custom_training/_0000194/services/${id}`)).json()).toMatchObject({ status: 'deleted' });
      await new Promise((r) => setTimeout(r, 1000));
      const row = await backend.app.db.pool.query('SELECT status, stage FROM custom_services WHERE id = $1', [id]);
      expect(row.rows[0]).toEqual({ status: 'deleted', stage: 'done' });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('renames (JSON or form), deletes (status deleted, then 404/2002) and frees the training set', async () => {
    const renamed = await call('PUT', `/custom_training/_0000194/services/${serviceId}`, { name: 'Shapes v2' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: serviceId, name: 'Shapes v2', status: 'running' });
    const form = await call('PUT', `/custom_training/_0000194/services/${serviceId}`, 'name=by%20form', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.json()).toMatchObject({ name: 'by form' });
    const empty = await call('PUT', `/custom_training/_0000194/services/${serviceId}`, { name: '  ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error_code: 5001 });
    expect(((await call('GET', `/custom_training/_0000194/services/${serviceId}`)).json() as CustomServiceObject).name).toBe('by form');

    const deleted = await call('DELETE', `/custom_training/_0000194/services/${serviceId}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ id: serviceId, status: 'deleted' });
    expect(JSON.parse(String(deleted.headers['x-iris-registry']))).toEqual({ deleted: [serviceId] });
    for (const [method, url] of [
      ['GET', `/custom_training/_0000194/services/${serviceId}`],
      ['PUT', `/custom_training/_0000194/services/${serviceId}`],
      ['DELETE', `/custom_training/_0000194/services/${serviceId}`],
    ] as const) {
      const res = await call(method, url, { name: 'again' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error_code: 2002 });
    }
    const inference = await call('POST', `/custom_training/${serviceId}`, { url: urlsByFamily.disc![0] });
    expect(inference.json()).toMatchObject({ data: { error_code: 2002 }, status: 404 });
    const list = (await call('GET', '/custom_training/_0000194/services')).json() as { results: CustomServiceObject[] };
    expect(list.results.map((s) => s.id)).not.toContain(serviceId);
    expect((await call('DELETE', `/custom_training/_0000194/training_sets/${shapesSet}`)).statusCode).toBe(200);
  });
});
