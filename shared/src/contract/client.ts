/**
 * A typed client built from the contract's operation table: `call('getImageSet', { params: { image_set_id } })`
 * takes its method and path from the operation and answers with the operation's response type, parsed by
 * its response schema. An answer that does not match its schema (success or error shape) throws a
 * `ContractViolation`, so a drift between the contract and what the platform answers fails loudly.
 * `checkAnswer` does the same check for callers that keep their own fetch (the console, the test helpers).
 * Runs in Node and in browsers (fetch, FormData).
 */
import type { z } from 'zod';
import { serviceById } from '../catalogue.js';
import { errorFamilyForPath } from '../errors.js';
import type { Operation } from './common.js';
import { isDeclaredError } from './declared-errors.js';
import { ERROR_SHAPES } from './error-shapes.js';
import { ADMIN_OPERATIONS, OPERATIONS, operationById, type OperationId, type OperationOf, type ResponseOf } from './index.js';

export type Fields = Record<string, string | number | boolean | undefined>;

export interface CallInput {
  /** Path parameters by the operation's names (`{image_set_id}`). */
  params?: Record<string, string>;
  query?: Fields;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as a urlencoded form. */
  form?: Fields;
  /** Sent as multipart (text fields and files). */
  multipart?: FormData;
}

export interface ClientOptions {
  /** `scheme://host[:port]` of the edge (a region's address). */
  baseUrl: string;
  /** Headers of every call: the access key (`x-ca-accesskeyid`, `x-ca-version`), or the admin bearer token. */
  headers?: () => Record<string, string>;
  fetch?: typeof fetch;
  /** Check every answer exactly (`CheckOptions.exact`): the test suites. */
  exact?: boolean;
}

/** The platform refused the call; `code` is the specification's error code when the answer carries one. */
export class ApiCallError extends Error {
  readonly code: number | undefined;
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly operation: Operation,
  ) {
    const { message, code } = errorSummary(body);
    super(`${operation.id} answered ${status}: ${message ?? JSON.stringify(body)}${code ? ` (${code})` : ''}`);
    this.name = 'ApiCallError';
    this.code = code;
  }
}

/** An answer that does not match the contract: a defect of the platform or of the contract, never of the caller. */
export class ContractViolation extends Error {
  constructor(
    readonly operationId: string,
    readonly status: number,
    readonly issues: z.ZodIssue[],
    readonly body: unknown,
  ) {
    const where = issues.slice(0, 5).map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
    super(`the ${status} answer of ${operationId} does not match the contract: ${where.join('; ')}`);
    this.name = 'ContractViolation';
  }
}

function errorSummary(body: unknown): { message?: string; code?: number } {
  const b = (body ?? {}) as { message?: unknown; msg?: unknown; error_code?: unknown; data?: { message?: unknown; msg?: unknown; error_code?: unknown } };
  const inner = b.data && typeof b.data === 'object' ? b.data : b;
  const message = inner.message ?? inner.msg ?? b.message;
  const code = inner.error_code ?? b.error_code;
  return { ...(typeof message === 'string' ? { message } : {}), ...(typeof code === 'number' ? { code } : {}) };
}

interface Matcher {
  operation: Operation;
  method: string;
  pattern: RegExp;
  literals: number;
}

const MATCHERS: Matcher[] = [...OPERATIONS, ...ADMIN_OPERATIONS].map((operation) => {
  const segments = operation.path.split('/').filter(Boolean);
  const pattern = segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return { operation, method: operation.method.toUpperCase(), pattern: new RegExp(`^/${pattern}/?$`), literals: segments.filter((s) => !s.startsWith('{')).length };
});

/**
 * The operation a call is, by method and path (query string ignored): the most specific path wins. The
 * analysis operations share one route and are told apart by the service's family, as the backend does.
 */
export function findOperation(method: string, pathAndQuery: string): Operation | undefined {
  const pathname = pathAndQuery.split('?')[0]!;
  const upper = method.toUpperCase();
  const found = MATCHERS.filter((m) => m.method === upper && m.pattern.test(pathname)).sort((a, b) => b.literals - a.literals)[0]?.operation;
  if (!found?.route) return found;
  const family = serviceById(pathname.split('/').filter(Boolean).at(-1) ?? '')?.family;
  return OPERATIONS.find((o) => o.route === found.route && o.method === found.method && o.id === family) ?? found;
}

export interface CheckOptions {
  /**
   * Exactly the contract: a success answer holds no key its schema would drop, and a refusal's code is one the
   * operation declares (or a platform code every call can meet). The test suites check every answer so.
   */
  exact?: boolean;
}

/**
 * Checks an answer against the contract: a success against the operation's response schema, a refusal
 * against the error shape of the path's family. Returns the parsed success answer; throws ContractViolation.
 */
export function checkAnswer(operation: Operation, status: number, body: unknown, options: CheckOptions = {}): unknown {
  if (status >= 400) {
    const shape = ERROR_SHAPES[operation.admin ? 'resource' : errorFamilyForPath(operation.path)];
    const result = shape.safeParse(body);
    if (!result.success) throw new ContractViolation(operation.id, status, result.error.issues, body);
    const { code } = errorSummary(body);
    if (options.exact && code !== undefined && !isDeclaredError(operation, status, code)) {
      throw new ContractViolation(operation.id, status, [{ code: 'custom', path: [], message: `error code ${status}/${code} is not one the operation declares` }], body);
    }
    return body;
  }
  if (status === 204) {
    if (operation.response !== null && !operation.alsoNoContent) throw new ContractViolation(operation.id, status, [noContentIssue], body);
    return undefined;
  }
  if (operation.response === null || operation.responseMediaType) return body;
  const result = operation.response.safeParse(body);
  if (!result.success) throw new ContractViolation(operation.id, status, result.error.issues, body);
  if (options.exact) {
    const dropped = droppedKeys(body, result.data, []);
    if (dropped.length) throw new ContractViolation(operation.id, status, dropped.map((path) => ({ code: 'custom', path, message: 'a key the contract does not have' })), body);
  }
  return result.data;
}

/** Paths of the keys of `answer` that parsing dropped (keys the schema does not name). */
function droppedKeys(answer: unknown, parsed: unknown, at: (string | number)[]): (string | number)[][] {
  if (Array.isArray(answer) && Array.isArray(parsed)) return answer.flatMap((item, i) => droppedKeys(item, parsed[i], [...at, i]));
  if (!isPlainObject(answer) || !isPlainObject(parsed)) return [];
  return Object.keys(answer).flatMap((key) => (key in parsed ? droppedKeys(answer[key], parsed[key], [...at, key]) : [[...at, key]]));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const noContentIssue: z.ZodIssue = { code: 'custom', path: [], message: 'answered 204 No Content where the contract has an answer' };

/** Parses a text answer as JSON when it is JSON (the answer of a file operation stays text). */
export function answerBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function fillPath(operation: Operation, params: Record<string, string> = {}): string {
  return operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operation.id}: path parameter ${name} is missing`);
    return encodeURIComponent(value);
  });
}

const defined = (fields: Fields = {}) => Object.entries(fields).filter((e): e is [string, string | number | boolean] => e[1] !== undefined);

export function createApiClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  /** Calls the operation; resolves with its answer parsed by the contract, rejects with ApiCallError or ContractViolation. */
  async function call<Id extends OperationId>(id: Id, input: CallInput = {}): Promise<ResponseOf<Id>> {
    const operation: Operation = operationById(id) as OperationOf<Id>;
    const url = new URL(base + fillPath(operation, input.params));
    for (const [k, v] of defined(input.query)) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...options.headers?.() };
    let body: string | FormData | undefined;
    if (input.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.json);
    } else if (input.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(defined(input.form).map(([k, v]): [string, string] => [k, String(v)])).toString();
    } else if (input.multipart) {
      body = input.multipart;
    }
    const res = await doFetch(url, { method: operation.method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) });
    const answer = answerBody(await res.text());
    const parsed = checkAnswer(operation, res.status, answer, { exact: options.exact === true });
    if (!res.ok) throw new ApiCallError(res.status, answer, operation);
    return parsed as ResponseOf<Id>;
  }

  return { call, baseUrl: base };
}

export type ApiClient = ReturnType<typeof createApiClient>;
