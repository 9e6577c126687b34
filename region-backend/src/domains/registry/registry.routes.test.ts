import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_HEADERS, newResourceId } from '@iris/shared';
import { startTestBackend, type TestBackend } from '../../../test/support/test-app.js';

describe('registry reconciliation (GET /internal/registry/{kind}/{id})', () => {
  let backend: TestBackend;

  beforeAll(async () => {
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });

  const check = async (kind: string, id: string, accountId = 1) => {
    const res = await backend.call({ method: 'GET', url: `/internal/registry/${kind}/${id}`, accountId });
    return { status: res.statusCode, body: res.json(), registry: res.headers[INTERNAL_HEADERS.registry] };
  };

  it('confirms the caller’s resources of each kind and retires ids that do not exist', async () => {
    const imageSet = newResourceId();
    expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: imageSet, payload: { name: 'a' } })).statusCode).toBe(200);
    const trainingSet = newResourceId();
    expect((await backend.call({ method: 'POST', url: '/custom_training/_0000194/training_sets', resourceId: trainingSet, payload: { name: 't', description: 'd' } })).statusCode).toBe(200);
    const productSet = newResourceId();
    expect((await backend.call({ method: 'POST', url: '/product_sets/_0000178', resourceId: productSet, payload: { name: 'p' } })).statusCode).toBe(200);

    for (const [kind, id] of [['image_set', imageSet], ['training_set', trainingSet], ['product_set', productSet]] as const) {
      const found = await check(kind, id);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ kind, id, exists: true });
      expect(JSON.parse(String(found.registry))).toEqual({ live: [id] });
    }
    // Same id under another kind, another account, or never created: not there.
    for (const [kind, id, accountId] of [['training_set', imageSet, 1], ['image_set', imageSet, 2], ['batch_task', newResourceId(), 1], ['custom_service', newResourceId(), 1], ['search_service', newResourceId(), 1]] as const) {
      const missing = await check(kind, id, accountId);
      expect(missing.body.exists, `${kind} ${id} for ${accountId}`).toBe(false);
      expect(JSON.parse(String(missing.registry))).toEqual({ deleted: [id] });
    }
  });

  it('answers 404 for an unknown kind or a malformed id', async () => {
    expect((await check('user', newResourceId())).status).toBe(404);
    expect((await check('image_set', 'NOT-AN-ID')).status).toBe(404);
  });
});
