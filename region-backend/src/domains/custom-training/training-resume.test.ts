/**
 * Durability of training: a backend process (a real child process) is killed with SIGKILL while it prepares a
 * custom service; a fresh process resumes the job from what is stored and reaches the same end state as an
 * uninterrupted run (same model, byte for byte, as a second service trained on the same set).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { fileBody, type ChildBackend } from '../../../test/data-sets/child-backend.js';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { startCrashHarness, type CrashHarness } from '../../../test/support/crash-harness.js';
import { CLASSIFIER_FEATURE_PIPELINE } from '../../vision/training/feature-info.js';
import type { CustomServiceObject } from './custom-service-view.js';
import { shapeImage, type ShapeFamily } from '../../../test/support/shape-images.js';

const FAMILIES: ShapeFamily[] = ['ring', 'cross'];
const PER_LABEL = 60;
const ENV = { IRIS_TRAINING_WAIT_MS: '300', IRIS_TRAINING_POLL_MS: '1000' };

describe('training survives a killed backend', () => {
  let harness: CrashHarness;
  let images: ImageServer;

  beforeAll(async () => {
    harness = await startCrashHarness('training-crash');
    images = await startImageServer();
  });
  afterAll(async () => {
    await harness?.close();
    await images?.close();
  });

  async function waitUntilDone(backend: ChildBackend, id: string): Promise<CustomServiceObject> {
    const until = Date.now() + 240_000;
    for (;;) {
      const service = (await backend.call({ method: 'GET', url: `/custom_training/_0000194/services/${id}` })).json() as CustomServiceObject;
      if (service.status === 'running' || service.status === 'failed') return service;
      if (Date.now() > until) throw new Error(`service not finished: ${JSON.stringify(service)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  const model = async (id: string) =>
    (await harness.pool.query<{ labels: string[]; weights: Buffer; bias: Buffer; mean: Buffer }>('SELECT labels, weights, bias, mean FROM custom_service_models WHERE service_id = $1', [id])).rows[0];

  it('resumes preparation after SIGKILL and trains the same model as an uninterrupted run', async () => {
    const rows: string[] = [];
    for (const family of FAMILIES) {
      for (let i = 0; i < PER_LABEL; i++) {
        images.set(`/${family}/${i}.jpg`, await shapeImage(family, i));
        rows.push(`${images.url(`/${family}/${i}.jpg`)},${family}`);
      }
    }
    const total = rows.length;
    const first = await harness.startBackend(ENV);
    const setId = newResourceId();
    expect((await first.call({ method: 'POST', url: '/custom_training/_0000194/training_sets', resourceId: setId, body: { name: 'crash', description: 'kill test' } })).status).toBe(200);
    const upload = fileBody('urls_to_add', 'data.csv', rows.join('\n'));
    expect((await first.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/images`, body: upload.payload, headers: upload.headers })).status).toBe(200);
    const serviceId = newResourceId();
    const created = await first.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/services`, resourceId: serviceId, body: { name: 'crash', scenario: 'classifier' } });
    expect(created.status).toBe(200);

    const featured = async () =>
      Number(
        (
          await harness.pool.query(
            `SELECT count(*) AS n FROM classifier_features f WHERE f.pipeline = $2
             AND f.blob_key IN (SELECT blob_key FROM data_set_records WHERE set_id = $1)`,
            [setId, CLASSIFIER_FEATURE_PIPELINE],
          )
        ).rows[0].n,
      );
    const until = Date.now() + 180_000;
    while ((await featured()) < 20) {
      if (Date.now() > until) throw new Error('feature computation did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.kill('SIGKILL');
    const atKill = await featured();
    expect(atKill).toBeLessThan(total);
    const state = (await harness.pool.query('SELECT status, stage FROM custom_services WHERE id = $1', [serviceId])).rows[0];
    expect(state).toEqual({ status: 'preparing', stage: 'embedding' });

    const second = await harness.startBackend(ENV);
    const resumed = await waitUntilDone(second, serviceId);
    expect(resumed).toMatchObject({ status: 'running', stage: 'done', progress: 1, label_counts: { cross: PER_LABEL, ring: PER_LABEL } });
    expect(resumed).not.toHaveProperty('message');
    expect(await featured()).toBe(total);
    const errors = await harness.pool.query('SELECT count(*) AS n FROM classifier_features WHERE error IS NOT NULL');
    expect(Number(errors.rows[0].n)).toBe(0);

    // The same set trained without interruption (all features stored now) gives exactly the same model.
    const referenceId = newResourceId();
    expect(
      (await second.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/services`, resourceId: referenceId, body: { name: 'reference', scenario: 'classifier' } })).status,
    ).toBe(200);
    const reference = await waitUntilDone(second, referenceId);
    expect(reference.status).toBe('running');
    expect(reference.validation_accuracy).toBe(resumed.validation_accuracy);
    const [a, b] = [await model(serviceId), await model(referenceId)];
    expect(a!.labels).toEqual(['cross', 'ring']);
    expect(b!.labels).toEqual(a!.labels);
    expect(Buffer.compare(a!.weights, b!.weights)).toBe(0);
    expect(Buffer.compare(a!.bias, b!.bias)).toBe(0);
    expect(Buffer.compare(a!.mean, b!.mean)).toBe(0);

    const query = fileBody('search', 'q.jpg', await shapeImage('ring', 500));
    const answer = await second.call({ method: 'POST', url: `/custom_training/${serviceId}`, body: query.payload, headers: query.headers });
    expect(answer.status).toBe(200);
    expect((answer.json() as { results: { category: string }[] }).results[0]!.category).toBe('ring');
    await second.kill('SIGTERM');
  }, 400_000);
});
