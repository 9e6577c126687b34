/**
 * The operator commands of `iris` (accounts, keys, quotas, grants, health, regions): they talk to the edge's
 * admin API with the admin token and print JSON.
 *
 *   IRIS_EDGE_URL     edge address (default http://127.0.0.1:8787)
 *   IRIS_ADMIN_TOKEN  admin token (default: the contents of $IRIS_DATA_DIR/admin-token, IRIS_DATA_DIR = .iris,
 *                     relative to the current folder)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { QUOTA_FIELDS } from './shared.js';
import { checkAnswer, findOperation } from './shared.js';
import { SetupError, UsageError } from './errors.js';

export const ADMIN_GROUPS = ['accounts', 'keys', 'quotas', 'grants', 'health', 'regions'] as const;

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

const QUOTA_OPTIONS: Record<string, string> = Object.fromEntries(QUOTA_FIELDS.map((f) => [f.option, f.api]));

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

function accountId(value: string | undefined): string {
  const id = need(value, '<account_id>');
  if (!/^\d+$/.test(id)) throw new UsageError(`account id must be a number: ${id}`);
  return id;
}

function quotaValue(name: string, value: string): number | null {
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer or "default"`);
  return Number(value);
}

/** The admin API calls for a command line (several for `grants add a b c`). */
export function planCalls(argv: string[]): Call[] {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      id: { type: 'string' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
      'signature-required': { type: 'boolean' },
      data: { type: 'string' },
      ...Object.fromEntries(Object.keys(QUOTA_OPTIONS).map((k) => [k, { type: 'string' as const }])),
    },
  });
  const [group, action, ...args] = positionals;
  const opts = values as Record<string, string | boolean | undefined>;
  switch (`${group ?? ''} ${action ?? ''}`.trim()) {
    case 'health':
      return [{ method: 'GET', path: '/health' }];
    case 'accounts create': {
      const id = opts.id === undefined ? undefined : Number(accountId(opts.id as string));
      return [{ method: 'POST', path: '/accounts', body: { name: need(args[0], '<name>'), ...(id ? { id } : {}) } }];
    }
    case 'accounts list':
      return [{ method: 'GET', path: '/accounts' }];
    case 'accounts show':
      return [{ method: 'GET', path: `/accounts/${accountId(args[0])}` }];
    case 'accounts disable':
    case 'accounts enable':
      return [{ method: 'POST', path: `/accounts/${accountId(args[0])}/${action}` }];
    case 'keys create': {
      const body: Record<string, unknown> = {};
      if (opts['key-id']) body.key_id = opts['key-id'];
      if (opts.secret) body.secret = opts.secret;
      if (opts['signature-required']) body.signature_required = true;
      return [{ method: 'POST', path: `/accounts/${accountId(args[0])}/keys`, body }];
    }
    case 'keys list':
      return [{ method: 'GET', path: `/accounts/${accountId(args[0])}/keys` }];
    case 'keys disable':
    case 'keys enable':
      return [{ method: 'POST', path: `/keys/${encodeURIComponent(need(args[0], '<key_id>'))}/${action}` }];
    case 'keys signature': {
      const flag = need(args[1], 'on|off');
      if (flag !== 'on' && flag !== 'off') throw new UsageError('keys signature <key_id> on|off');
      return [{ method: 'PATCH', path: `/keys/${encodeURIComponent(need(args[0], '<key_id>'))}`, body: { signature_required: flag === 'on' } }];
    }
    case 'quotas show':
      return [{ method: 'GET', path: `/accounts/${accountId(args[0])}/quotas` }];
    case 'quotas set': {
      const body: Record<string, number | null> = {};
      for (const [option, field] of Object.entries(QUOTA_OPTIONS)) {
        const value = opts[option];
        if (typeof value === 'string') body[field] = quotaValue(option, value);
      }
      if (!Object.keys(body).length) throw new UsageError(`quotas set needs at least one of ${Object.keys(QUOTA_OPTIONS).map((o) => `--${o}`).join(', ')}`);
      return [{ method: 'PUT', path: `/accounts/${accountId(args[0])}/quotas`, body }];
    }
    case 'grants list':
      return [{ method: 'GET', path: `/accounts/${accountId(args[0])}/grants` }];
    case 'grants add':
    case 'grants remove': {
      const id = accountId(args[0]);
      const services = args.slice(1);
      if (!services.length) throw new UsageError(`grants ${action} <account_id> <service_id>...`);
      return services.map((s) => ({ method: action === 'add' ? 'PUT' : 'DELETE', path: `/accounts/${id}/grants/${encodeURIComponent(s)}` }));
    }
    case 'regions call': {
      const [region, method, target] = [need(args[0], '<region>'), need(args[1], '<METHOD>').toUpperCase(), need(args[2], '<path>')];
      let body: unknown;
      if (typeof opts.data === 'string') {
        try {
          body = JSON.parse(opts.data);
        } catch {
          throw new UsageError('--data must be JSON');
        }
      }
      return [{ method, path: `/regions/${encodeURIComponent(region)}/${target.replace(/^\/+/, '')}`, body }];
    }
    default:
      throw new UsageError(group ? `unknown command: ${positionals.join(' ')}` : 'no command given');
  }
}

function adminToken(): string {
  if (process.env.IRIS_ADMIN_TOKEN) return process.env.IRIS_ADMIN_TOKEN.trim();
  const file = path.join(path.resolve(process.env.IRIS_DATA_DIR ?? '.iris'), 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new SetupError(`no admin token: set IRIS_ADMIN_TOKEN or create ${file} (npm start writes it)`);
}

/** Runs an operator command; prints the (last) answer as JSON. Exit codes as the data commands. */
export async function runAdminCli(argv: string[]): Promise<number> {
  const calls = planCalls(argv);
  const edge = (process.env.IRIS_EDGE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  const token = adminToken();
  let last: unknown;
  for (const call of calls) {
    let res: Response;
    try {
      res = await fetch(`${edge}/admin${call.path}`, {
        method: call.method,
        headers: { authorization: `Bearer ${token}`, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      });
    } catch (err) {
      throw new SetupError(`cannot reach the edge at ${edge}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: print as text
    }
    // Answers of the admin API are parsed with the contract's admin schemas: a drift is a platform defect (exit 4).
    const operation = findOperation(call.method, `/admin${call.path}`);
    if (operation) checkAnswer(operation, res.status, body);
    if (!res.ok) {
      console.error(JSON.stringify({ status: res.status, error: body }, null, 2));
      return 1;
    }
    last = body;
  }
  console.log(JSON.stringify(last, null, 2));
  return 0;
}
