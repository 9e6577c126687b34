/** `/admin/keys/{key_id}`: one access key, whatever its account (found by the hash of its id). */
import { Hono, type Context } from 'hono';
import { ApiError, formatTimeOrNull, UpdateKeyBody } from '@iris/shared';
import { changeKey, deleteKey } from '../accounts/account-keys.service.js';
import { findKeyRow, type KeyChanges } from '../accounts/access-key.repo.js';
import { convertLegacyKeys, scopesText } from '../accounts/key-store.service.js';
import { keyHash } from '../accounts/secret-box.js';
import { forgetKey } from '../cache/hot-path.cache.js';
import { database } from '../db/database.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';
import { keyJson } from './admin.mappers.js';
import { parseBody } from './admin.schemas.js';

/** The key (converting a pre-0002 key first); the audit log names it by its reference, never its id. */
async function requireKey(c: Context<AppEnv>, keyId: string) {
  const db = database(c.env.DB);
  await convertLegacyKeys(db, c.env.SECRETS_MASTER_KEY, { keyId });
  const key = await findKeyRow(db, await keyHash(keyId));
  if (!key) throw new ApiError('notFound', `access key ${keyId.slice(0, 128)} does not exist`);
  c.set('auditTarget', key.keyRef ?? undefined);
  c.set('auditAccountId', key.accountId);
  return { db, key };
}

/** Changes a key and drops the isolate's copy. */
async function updateKey(c: Context<AppEnv>, keyId: string, changes: KeyChanges) {
  const { db, key } = await requireKey(c, keyId);
  const updated = await changeKey(db, key, changes);
  forgetKey(keyId);
  c.set('auditDetail', { ...changes, ...(changes.expiresAt !== undefined ? { expiresAt: formatTimeOrNull(changes.expiresAt) } : {}) });
  return json(keyJson(updated, { keyId }));
}

export const keyAdminRoutes = new Hono<AppEnv>()
  .get('/:keyId', async (c) => json(keyJson((await requireKey(c, c.req.param('keyId'))).key, { keyId: c.req.param('keyId') })))
  .post('/:keyId/disable', (c) => updateKey(c, c.req.param('keyId'), { enabled: false }))
  .post('/:keyId/enable', (c) => updateKey(c, c.req.param('keyId'), { enabled: true }))
  .patch('/:keyId', async function patchKey(c) {
    const body = await parseBody(c.req.raw, UpdateKeyBody);
    return updateKey(c, c.req.param('keyId'), {
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.signature_required !== undefined ? { signatureRequired: body.signature_required } : {}),
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.scopes !== undefined ? { scopes: scopesText(body.scopes) } : {}),
      ...(body.expires_at !== undefined ? { expiresAt: body.expires_at } : {}),
    });
  })
  .delete('/:keyId', async function removeKey(c) {
    const { db, key } = await requireKey(c, c.req.param('keyId'));
    await deleteKey(db, key);
    forgetKey(c.req.param('keyId'));
    c.set('auditDetail', { deleted: true });
    return c.body(null, 204);
  });
