/** `/admin/keys/{key_id}`: one access key, whatever its account (found by the hash of its id). */
import { Hono, type Context } from 'hono';
import { ApiError, UpdateKeyBody } from '@iris/shared';
import { findKeyRow, updateKeyRow } from '../accounts/access-key.repo.js';
import { convertLegacyKeys } from '../accounts/key-store.service.js';
import { keyHash } from '../accounts/secret-box.js';
import { forgetKey } from '../cache/hot-path.cache.js';
import { database } from '../db/database.js';
import type { AccessKey } from '../db/schema.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';
import { keyJson } from './admin.mappers.js';
import { parseBody } from './admin.schemas.js';

function found(key: AccessKey | undefined, keyId: string) {
  if (!key) throw new ApiError('notFound', `access key ${keyId} does not exist`);
  return keyJson(key, { keyId });
}

/** Changes a key (converting a pre-0002 key first) and drops the isolate's copy. */
async function changeKey(c: Context<AppEnv>, keyId: string, changes: Partial<Pick<AccessKey, 'enabled' | 'signatureRequired'>>) {
  const db = database(c.env.DB);
  await convertLegacyKeys(db, c.env.SECRETS_MASTER_KEY, { keyId });
  const hash = await keyHash(keyId);
  const key = Object.keys(changes).length ? await updateKeyRow(db, hash, changes) : await findKeyRow(db, hash);
  forgetKey(keyId);
  return json(found(key, keyId));
}

export const keyAdminRoutes = new Hono<AppEnv>()
  .get('/:keyId', (c) => changeKey(c, c.req.param('keyId'), {}))
  .post('/:keyId/disable', (c) => changeKey(c, c.req.param('keyId'), { enabled: false }))
  .post('/:keyId/enable', (c) => changeKey(c, c.req.param('keyId'), { enabled: true }))
  .patch('/:keyId', async function patchKey(c) {
    const body = await parseBody(c.req.raw, UpdateKeyBody);
    return changeKey(c, c.req.param('keyId'), {
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.signature_required !== undefined ? { signatureRequired: body.signature_required } : {}),
    });
  });
