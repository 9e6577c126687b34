/**
 * With an operator's ONNX image embedder configured (stage `image-embedder`), custom classifiers train on its
 * vectors and predict with it: the real training job, real PostgreSQL and worker threads, a tiny encoder built
 * by the test (a 4×4 grid of mean colours, test/support/tiny-encoder.ts) and generated shapes of three colours.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, newResourceId } from '@iris/shared';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../../../test/support/test-app.js';
import { resetModelConfig } from '../../vision/runtime/model-config.js';
import { embedderIdentity, resetConfiguredEmbedder } from '../../vision/embedding/embedder-identity.js';
import { writeTinyEncoder } from '../../../test/support/tiny-encoder.js';
import type { CustomServiceObject } from './custom-service-view.js';
import { shapeImage, type ShapeFamily } from '../../../test/support/shape-images.js';

const FAMILIES: ShapeFamily[] = ['disc', 'square', 'stripes'];

describe('custom training on an ONNX image embedder', () => {
  let backend: TestBackend;
  let images: ImageServer;
  let modelDir: string;
  let embedderId: string;

  const call = (method: string, url: string, payload?: object | Buffer | string, headers?: Record<string, string>, resourceId?: string) =>
    backend.call({ method, url, ...(payload !== undefined ? { payload } : {}), ...(headers ? { headers } : {}), ...(resourceId ? { resourceId } : {}) });

  beforeAll(async () => {
    modelDir = mkdtempSync(path.join(os.tmpdir(), 'iris-training-embedder-'));
    const manifest = writeTinyEncoder(modelDir, 'grid-encoder', 'vector', { dim: 48 });
    writeFileSync(path.join(modelDir, 'overrides.json'), JSON.stringify({ 'image-embedder': manifest }));
    embedderId = (await embedderIdentity(manifest)).id;
    // Model overrides are read from the process environment (model-config.ts).
    process.env.IRIS_MODEL_OVERRIDES = path.join(modelDir, 'overrides.json');
    resetModelConfig();
    resetConfiguredEmbedder();
    images = await startImageServer();
    backend = await startTestBackend({ IRIS_TRAINING_WAIT_MS: '300', IRIS_TRAINING_POLL_MS: '2000' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
    delete process.env.IRIS_MODEL_OVERRIDES;
    resetModelConfig();
    resetConfiguredEmbedder();
    if (modelDir) rmSync(modelDir, { recursive: true, force: true });
  });

  it('trains on the embedder\'s vectors, stores their pipeline and classifies with the same model', async () => {
    const rows: string[] = [];
    for (const family of FAMILIES) {
      for (let i = 0; i < LIMITS.imagesPerLabel; i++) {
        images.set(`/img/${family}/${i}.jpg`, await shapeImage(family, i));
        rows.push(`${images.url(`/img/${family}/${i}.jpg`)},${family}`);
      }
    }
    const setId = newResourceId();
    expect((await call('POST', '/custom_training/_0000194/training_sets', { name: 'shapes', description: 'generated' }, undefined, setId)).statusCode).toBe(200);
    const upload = multipart({ urls_to_add: { filename: 'data.csv', content: rows.join('\n') } });
    expect((await call('POST', `/custom_training/_0000194/training_sets/${setId}/images`, upload.payload, upload.headers)).statusCode).toBe(200);
    const serviceId = newResourceId();
    const created = await call('POST', `/custom_training/_0000194/training_sets/${setId}/services`, { name: 'shapes', scenario: 'classifier' }, undefined, serviceId);
    expect(created.statusCode, created.body).toBe(200);

    let service: CustomServiceObject;
    const until = Date.now() + 240_000;
    for (;;) {
      service = (await call('GET', `/custom_training/_0000194/services/${serviceId}`)).json() as CustomServiceObject;
      if (service.status === 'running' || service.status === 'failed' || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(service.status, JSON.stringify(service)).toBe('running');
    expect(service.validation_accuracy).toBeGreaterThanOrEqual(0.9);

    const stored = await backend.app.db.pool.query<{ feature_pipeline: string; dim: number }>('SELECT feature_pipeline, dim FROM custom_service_models WHERE service_id = $1', [serviceId]);
    expect(stored.rows[0]).toEqual({ feature_pipeline: `${embedderId}/classifier-whole`, dim: 48 });

    for (const family of FAMILIES) {
      const body = multipart({ image: { filename: 'q.jpg', content: await shapeImage(family, 5000), contentType: 'image/jpeg' }, topk: '3' });
      const res = await call('POST', `/custom_training/${serviceId}`, body.payload, body.headers);
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json() as { results: { category: string }[]; version: string };
      expect(answer.results[0]!.category).toBe(family);
      expect(answer.version.startsWith(`${embedderId}/classifier-whole@`)).toBe(true);
    }
  }, 300_000);
});
