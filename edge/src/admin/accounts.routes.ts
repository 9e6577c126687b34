/** `/admin/accounts`: accounts, their keys, quotas and service grants. */
import { Hono, type Context } from 'hono';
import { AdminAccountBody, ApiError, CreateAccountBody, CreateKeyBody, QUOTA_FIELDS, QuotasBody, SERVICES, serviceById } from '@iris/shared';
import { listKeyRows } from '../accounts/access-key.repo.js';
import { createKey } from '../accounts/account-keys.service.js';
import { convertLegacyKeys } from '../accounts/key-store.service.js';
import { findAccount, insertAccount, listAccounts, setAccountDisabled, setAccountSignatureRequired } from '../accounts/account.repo.js';
import { listExplicitGrants, setGrant } from '../accounts/grant.repo.js';
import { getQuotas, setQuotas } from '../accounts/quota.repo.js';
import { forgetAccount, forgetKey } from '../cache/hot-path.cache.js';
import { database, type Database } from '../db/database.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';
import { accountJson, keyJson, quotasJson } from './admin.mappers.js';
import { parseAccountId, parseBody } from './admin.schemas.js';
import { generateKeyId, generateSecret } from './credentials.js';
import { REVOCATION_HEADER, revokeQueuedWork } from './revocation.service.js';

async function requireAccount(db: Database, c: Context<AppEnv>) {
  const id = parseAccountId(c.req.param('id'));
  const account = await findAccount(db, id);
  if (!account) throw new ApiError('notFound', `account ${id} does not exist`);
  return account;
}

/** The account's keys, converting any stored before migration 0002 first. */
async function accountKeys(db: Database, c: Context<AppEnv>, accountId: number) {
  while ((await convertLegacyKeys(db, c.env.SECRETS_MASTER_KEY, { accountId })) > 0);
  return listKeyRows(db, accountId);
}

async function grantsJson(db: Database, c: Context<AppEnv>, accountId: number) {
  const config = c.get('config');
  const explicit = await listExplicitGrants(db, accountId);
  return {
    account_id: accountId,
    default: config.grantsByDefault ? 'all' : 'none',
    results: SERVICES.map((s) => ({
      service_id: s.id,
      name: s.name.en,
      granted: explicit.get(s.id) ?? config.grantsByDefault,
      explicit: explicit.has(s.id),
      regions: Object.entries(config.regionServices).filter(([, ids]) => ids.has(s.id)).map(([region]) => region),
    })),
  };
}

function setDisabled(disabled: boolean) {
  return async function setAccountState(c: Context<AppEnv>) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    const response = json(accountJson((await setAccountDisabled(db, account.id, disabled))!));
    forgetAccount(account.id);
    c.set('auditDetail', { disabled });
    if (disabled) response.headers.set(REVOCATION_HEADER, await revokeQueuedWork(c, { accountId: account.id }));
    return response;
  };
}

function grant(granted: boolean) {
  return async function setServiceGrant(c: Context<AppEnv>) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    const serviceId = c.req.param('serviceId') ?? '';
    if (!serviceById(serviceId)) throw new ApiError('notFound', `service ${serviceId} is not in the catalogue`);
    await setGrant(db, account.id, serviceId, granted);
    forgetAccount(account.id);
    c.set('auditDetail', { service_id: serviceId, granted });
    const response = json(await grantsJson(db, c, account.id));
    if (!granted) response.headers.set(REVOCATION_HEADER, await revokeQueuedWork(c, { accountId: account.id, serviceId }));
    return response;
  };
}

export const accountAdminRoutes = new Hono<AppEnv>()
  .get('/', async (c) => json({ results: (await listAccounts(database(c.env.DB))).map(accountJson) }))
  .post('/', async function createAccount(c) {
    const db = database(c.env.DB);
    const body = await parseBody(c.req.raw, CreateAccountBody);
    if (body.id !== undefined && (await findAccount(db, body.id))) throw new ApiError([409, 1111], `account ${body.id} already exists`);
    const created = await insertAccount(db, body);
    c.set('auditAccountId', created.id);
    c.set('auditDetail', { created: true, name: created.name });
    return json(accountJson(created), 201);
  })
  .get('/:id', async function getAccount(c) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    const keys = await accountKeys(db, c, account.id);
    return json({ ...accountJson(account), keys: keys.map((k) => keyJson(k)), quotas: quotasJson(await getQuotas(db, account.id)) });
  })
  .post('/:id/disable', setDisabled(true))
  .post('/:id/enable', setDisabled(false))
  .get('/:id/keys', async function listAccountKeys(c) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    return json({ results: (await accountKeys(db, c, account.id)).map((k) => keyJson(k)) });
  })
  .post('/:id/keys', async function ensureKey(c) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    const body = await parseBody(c.req.raw, CreateKeyBody);
    const created = await createKey(
      db,
      c.env.SECRETS_MASTER_KEY,
      account.id,
      { keyId: body.key_id, secret: body.secret, name: body.name, scopes: body.scopes, expiresAt: body.expires_at, signatureRequired: body.signature_required },
      { keyId: generateKeyId, secret: generateSecret },
    );
    forgetKey(created.keyId);
    c.set('auditTarget', created.row.keyRef ?? undefined);
    c.set('auditDetail', { created: true, name: body.name ?? null, scopes: body.scopes ?? null, signature_required: created.row.signatureRequired });
    return json(keyJson(created.row, { keyId: created.keyId, secret: created.secret }), 201);
  })
  .patch('/:id', async function updateAccount(c) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    const body = await parseBody(c.req.raw, AdminAccountBody);
    const updated = body.signature_required === undefined ? account : await setAccountSignatureRequired(db, account.id, body.signature_required);
    forgetAccount(account.id);
    c.set('auditDetail', body);
    return json(accountJson(updated!));
  })
  .get('/:id/quotas', async (c) => {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    return json(quotasJson(await getQuotas(db, account.id)));
  })
  .on(['PUT', 'PATCH'], '/:id/quotas', async function updateQuotas(c) {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    const body = await parseBody(c.req.raw, QuotasBody);
    const changes = Object.fromEntries(QUOTA_FIELDS.filter((f) => body[f.api] !== undefined).map((f) => [f.key, body[f.api]]));
    const quotas = await setQuotas(db, account.id, changes);
    forgetAccount(account.id);
    c.set('auditDetail', Object.fromEntries(QUOTA_FIELDS.filter((f) => body[f.api] !== undefined).map((f) => [f.api, body[f.api]])));
    return json(quotasJson(quotas));
  })
  .get('/:id/grants', async (c) => {
    const db = database(c.env.DB);
    const account = await requireAccount(db, c);
    return json(await grantsJson(db, c, account.id));
  })
  .on(['PUT', 'POST'], '/:id/grants/:serviceId', grant(true))
  .delete('/:id/grants/:serviceId', grant(false));
