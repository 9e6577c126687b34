/** `/admin/keys/{key_id}`: one access key, whatever its account. */
import { Hono, type Context } from 'hono';
import { ApiError } from '@iris/shared';
import { findKey, updateKey } from '../accounts/access-key.repo.js';
import { forgetKey } from '../cache/hot-path.cache.js';
import { database } from '../db/database.js';
import type { AccessKey } from '../db/schema.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';
import { keyJson } from './admin.mappers.js';
import { parseBody, updateKeyBody } from './admin.schemas.js';

function found(key: AccessKey | undefined, keyId: string): AccessKey {
  if (!key) throw new ApiError('notFound', `access key ${keyId} does not exist`);
  return key;
}

function setEnabled(enabled: boolean) {
  return async function setKeyState(c: Context<AppEnv>) {
    const keyId = c.req.param('keyId') ?? '';
    const key = await updateKey(database(c.env.DB), keyId, { enabled });
    forgetKey(keyId);
    return json(keyJson(found(key, keyId)));
  };
}

export const keyAdminRoutes = new Hono<AppEnv>()
  .get('/:keyId', async (c) => json(keyJson(found(await findKey(database(c.env.DB), c.req.param('keyId')), c.req.param('keyId')))))
  .post('/:keyId/disable', setEnabled(false))
  .post('/:keyId/enable', setEnabled(true))
  .patch('/:keyId', async function patchKey(c) {
    const keyId = c.req.param('keyId');
    const body = await parseBody(c.req.raw, updateKeyBody);
    const changes = {
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.signature_required !== undefined ? { signatureRequired: body.signature_required } : {}),
    };
    const db = database(c.env.DB);
    const key = Object.keys(changes).length ? await updateKey(db, keyId, changes) : await findKey(db, keyId);
    forgetKey(keyId);
    return json(keyJson(found(key, keyId)));
  });
