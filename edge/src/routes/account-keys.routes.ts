/**
 * `/iris/keys` and `/iris/account`: an account's own access keys and settings (scope `admin-of-account`,
 * checked by requireScope). Answers in the resource error shape; secrets only in the answer that made them.
 */
import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { AccountSettingsBody, ApiError, CreateAccountKeyBody, formatTime, formatTimeOrNull, RotateKeyBody, UpdateAccountKeyBody } from '@iris/shared';
import { findAccount, setAccountSignatureRequired } from '../accounts/account.repo.js';
import { changeKey, createKey, DEFAULT_ROTATION_OVERLAP_MS, deleteKey, requireKeyByRef, rotateKey } from '../accounts/account-keys.service.js';
import { listKeyRows, type KeyChanges } from '../accounts/access-key.repo.js';
import { convertLegacyKeys, parseScopes, scopesText } from '../accounts/key-store.service.js';
import { generateKeyId, generateSecret } from '../admin/credentials.js';
import { forgetAccount } from '../cache/hot-path.cache.js';
import { database, type Database } from '../db/database.js';
import type { AccessKey } from '../db/schema.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';

/** Key bodies are a few fields of JSON. */
const MAX_BODY_BYTES = 16 * 1024;
const IDS = { keyId: generateKeyId, secret: generateSecret };

/** The call's JSON body (already read and signed over) parsed with a schema; refusals 400/1111. */
export function jsonBody<T extends z.ZodTypeAny>(c: Context<AppEnv>, schema: T): z.infer<T> {
  const body = c.get('body');
  if ((body.bytes?.length ?? 0) > MAX_BODY_BYTES) throw new ApiError('badRequest', `body must be at most ${MAX_BODY_BYTES} bytes`);
  const json = body.json;
  if (body.bytes?.length && json?.value === undefined) throw new ApiError('badRequest', 'body must be JSON');
  const result = schema.safeParse(json?.value ?? {});
  if (!result.success) throw new ApiError('badRequest', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ').slice(0, 500));
  return result.data;
}

export function accountKeyJson(key: AccessKey, known: { keyId?: string; secret?: string; currentHash?: string } = {}) {
  return {
    key_ref: key.keyRef ?? '',
    key_id_hint: key.keyHint,
    ...(known.keyId !== undefined ? { key_id: known.keyId } : {}),
    ...(known.secret !== undefined ? { secret: known.secret } : {}),
    name: key.name,
    enabled: key.enabled,
    signature_required: key.signatureRequired,
    scopes: parseScopes(key.scopes),
    expires_at: formatTimeOrNull(key.expiresAt),
    expired: key.expiresAt !== null && key.expiresAt <= Date.now(),
    rotated_from: key.rotatedFrom,
    created_at: formatTime(key.createdAt),
    current: key.keyHash === known.currentHash,
  };
}

/** What changed, for the audit log (never a secret or a key id). */
function changeDetail(changes: KeyChanges): Record<string, unknown> {
  return Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, k === 'expiresAt' && typeof v === 'number' ? formatTime(v) : v]));
}

function keyChanges(body: z.infer<typeof UpdateAccountKeyBody>): KeyChanges {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.scopes !== undefined ? { scopes: scopesText(body.scopes) } : {}),
    ...(body.expires_at !== undefined ? { expiresAt: body.expires_at } : {}),
    ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
    ...(body.signature_required !== undefined ? { signatureRequired: body.signature_required } : {}),
  };
}

function context(c: Context<AppEnv>): { db: Database; accountId: number; currentHash: string; requestId: string } {
  const caller = c.get('caller');
  return { db: database(c.env.DB), accountId: caller.accountId, currentHash: caller.keyHash, requestId: c.get('requestId') };
}

async function keyByRef(c: Context<AppEnv>) {
  const { db, accountId } = context(c);
  const key = await requireKeyByRef(db, accountId, c.req.param('key_ref') ?? '');
  c.set('auditTarget', key.keyRef ?? undefined);
  return key;
}

function setEnabled(enabled: boolean) {
  return async function setKeyEnabled(c: Context<AppEnv>) {
    const { db, currentHash, requestId } = context(c);
    const key = await changeKey(db, await keyByRef(c), { enabled });
    c.set('auditDetail', { enabled });
    return json({ ...accountKeyJson(key, { currentHash }), request_id: requestId });
  };
}

async function settingsJson(db: Database, accountId: number, requestId: string) {
  const account = await findAccount(db, accountId);
  return { request_id: requestId, account_id: accountId, signature_required: account?.signatureRequired ?? false };
}

export const accountKeyRoutes = new Hono<AppEnv>()
  .get('/keys', async function listKeys(c) {
    const { db, accountId, currentHash, requestId } = context(c);
    while ((await convertLegacyKeys(db, c.env.SECRETS_MASTER_KEY, { accountId })) > 0);
    const keys = await listKeyRows(db, accountId);
    return json({ request_id: requestId, results: keys.map((k) => accountKeyJson(k, { currentHash })) });
  })
  .post('/keys', async function createAccountKey(c) {
    const { db, accountId, currentHash, requestId } = context(c);
    const body = jsonBody(c, CreateAccountKeyBody);
    const created = await createKey(
      db,
      c.env.SECRETS_MASTER_KEY,
      accountId,
      { keyId: body.key_id, name: body.name, scopes: body.scopes, expiresAt: body.expires_at, signatureRequired: body.signature_required },
      IDS,
    );
    c.set('auditTarget', created.row.keyRef ?? undefined);
    c.set('auditDetail', { created: true, name: body.name ?? null, scopes: body.scopes ?? null, expires_at: formatTimeOrNull(body.expires_at), signature_required: created.row.signatureRequired });
    return json({ ...accountKeyJson(created.row, { keyId: created.keyId, secret: created.secret, currentHash }), request_id: requestId }, 201);
  })
  .get('/keys/:key_ref', async function getKey(c) {
    const { currentHash, requestId } = context(c);
    return json({ ...accountKeyJson(await keyByRef(c), { currentHash }), request_id: requestId });
  })
  .patch('/keys/:key_ref', async function updateKey(c) {
    const { db, currentHash, requestId } = context(c);
    const body = jsonBody(c, UpdateAccountKeyBody);
    const changes = keyChanges(body);
    const key = await changeKey(db, await keyByRef(c), changes);
    c.set('auditDetail', changeDetail(changes));
    return json({ ...accountKeyJson(key, { currentHash }), request_id: requestId });
  })
  .post('/keys/:key_ref/disable', setEnabled(false))
  .post('/keys/:key_ref/enable', setEnabled(true))
  .post('/keys/:key_ref/rotate', async function rotate(c) {
    const { db, currentHash, requestId } = context(c);
    const body = jsonBody(c, RotateKeyBody);
    const old = await keyByRef(c);
    const until = Math.max(Date.now(), body.old_key_valid_until ?? Date.now() + DEFAULT_ROTATION_OVERLAP_MS);
    const { created, previous } = await rotateKey(db, c.env.SECRETS_MASTER_KEY, old, until, IDS);
    c.set('auditDetail', { rotated_to: created.row.keyRef, old_key_valid_until: formatTimeOrNull(previous.expiresAt) });
    return json(
      {
        request_id: requestId,
        key: accountKeyJson(created.row, { keyId: created.keyId, secret: created.secret, currentHash }),
        previous: accountKeyJson(previous, { currentHash }),
      },
      201,
    );
  })
  .delete('/keys/:key_ref', async function removeKey(c) {
    const { db } = context(c);
    await deleteKey(db, await keyByRef(c));
    c.set('auditDetail', { deleted: true });
    return c.body(null, 204);
  })
  .get('/account', async (c) => {
    const { db, accountId, requestId } = context(c);
    return json(await settingsJson(db, accountId, requestId));
  })
  .put('/account', async function updateSettings(c) {
    const { db, accountId, requestId } = context(c);
    const body = jsonBody(c, AccountSettingsBody);
    await setAccountSignatureRequired(db, accountId, body.signature_required);
    forgetAccount(accountId);
    c.set('auditDetail', { signature_required: body.signature_required });
    return json(await settingsJson(db, accountId, requestId));
  });
