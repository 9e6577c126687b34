/**
 * `iris api <operation_id> ...`: any operation of the contract by its id, with path parameters, query,
 * JSON / form / multipart body from the command line; the answer is parsed by the contract and printed as
 * JSON. `iris api list` names every operation (`GET /openapi.json` describes each in full).
 */
import type { CallInput, IrisClient } from './client.js';
import { UsageError } from './errors.js';
import { OPERATIONS, type OperationId } from './shared.js';

export interface ApiOptions {
  param?: string[];
  query?: string[];
  form?: string[];
  file?: string[];
  body?: string;
}

/** `k=v` pairs (the value may hold `=`). */
export function pairs(values: readonly string[] | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of values ?? []) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--${what} takes name=value: ${item}`, 'api');
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/** The call an `iris api` command line makes (no network: unit-tested). */
export function apiCall(args: readonly string[], opts: ApiOptions): { id: OperationId; input: CallInput } {
  const id = args[0];
  if (!id) throw new UsageError('missing <operation_id> (iris api list names them)', 'api');
  const operation = OPERATIONS.find((o) => o.id === id);
  if (!operation || operation.public) throw new UsageError(`no operation ${id} (iris api list names them)`, 'api');
  if (operation.responseMediaType) throw new UsageError(`${id} answers a file, not JSON: not available through iris api`, 'api');
  const input: CallInput = {};
  const params = pairs(opts.param, 'param');
  for (const name of operation.path.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
    if (params[name] === undefined) throw new UsageError(`${id} needs --param ${name}=...`, 'api');
  }
  if (Object.keys(params).length) input.params = params;
  if (opts.query?.length) input.query = pairs(opts.query, 'query');
  const bodies = [opts.body !== undefined, Boolean(opts.form?.length), Boolean(opts.file?.length)].filter(Boolean).length;
  if (opts.body !== undefined && bodies > 1) throw new UsageError('give --body (JSON), or --form / --file fields, not both', 'api');
  if (opts.body !== undefined) {
    try {
      input.json = JSON.parse(opts.body);
    } catch {
      throw new UsageError('--body must be JSON', 'api');
    }
  } else if (opts.file?.length) input.multipart = { fields: pairs(opts.form, 'form'), files: pairs(opts.file, 'file') };
  else if (opts.form?.length) input.form = pairs(opts.form, 'form');
  return { id: id as OperationId, input };
}

export function operationList(): string {
  return OPERATIONS.filter((o) => !o.public)
    .map((o) => `${o.id.padEnd(28)} ${o.method.toUpperCase().padEnd(6)} ${o.path}\n${' '.repeat(29)}${o.summary}`)
    .join('\n');
}

export async function runApi(client: IrisClient, args: readonly string[], opts: ApiOptions): Promise<{ value: unknown; text: string }> {
  if (args[0] === 'list') return { value: OPERATIONS.filter((o) => !o.public).map((o) => ({ id: o.id, method: o.method, path: o.path, summary: o.summary })), text: operationList() };
  const { id, input } = apiCall(args, opts);
  const answer = await client.call(id, input);
  return { value: answer, text: JSON.stringify(answer ?? null, null, 2) };
}
