/**
 * A typed client of the Iris API, driven by the contract: each call names a contract operation, its path
 * and method come from it, and the answer is parsed with its response schema (so the result is typed).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { operationById, type Operation } from '@iris/shared';

export interface ClientConfig {
  urlRoot: string;
  accessKeyId: string;
  lang: 'en' | 'zh';
}

export type Fields = Record<string, string | number | undefined>;
export interface CallInput {
  params?: Record<string, string>;
  query?: Fields;
  /** Sent as JSON. */
  json?: Record<string, unknown>;
  /** Sent as a urlencoded form. */
  form?: Fields;
  /** Sent as multipart: text fields and files (path on disk). */
  multipart?: { fields?: Fields; files?: Record<string, string> };
}

export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    operation: Operation,
  ) {
    super(`${operation.id} answered ${status}: ${errorMessage(body)}`);
  }
}

function errorMessage(body: unknown): string {
  const b = body as { message?: string; error_code?: number; data?: { message?: string; error_code?: number } } | null;
  const message = b?.message ?? b?.data?.message;
  const code = b?.error_code ?? b?.data?.error_code;
  return message ? `${message}${code ? ` (${code})` : ''}` : JSON.stringify(body);
}

const defined = (fields: Fields = {}) => Object.entries(fields).filter((e): e is [string, string | number] => e[1] !== undefined);

export function createClient(config: ClientConfig) {
  const base = config.urlRoot.replace(/\/+$/, '');

  async function call<S extends z.ZodTypeAny>(operationOrId: string | Operation, input: CallInput, schema: S): Promise<z.output<S>> {
    const operation = typeof operationOrId === 'string' ? operationById(operationOrId) : operationOrId;
    const pathname = operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(input.params?.[name] ?? ''));
    const url = new URL(base + pathname);
    for (const [k, v] of defined(input.query)) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'x-ca-accesskeyid': config.accessKeyId, 'x-ca-version': '1', 'accept-language': config.lang === 'zh' ? 'zh-cn' : 'en-us' };
    let body: string | FormData | undefined;
    if (input.json) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.json);
    } else if (input.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(defined(input.form).map(([k, v]): [string, string] => [k, String(v)])).toString();
    } else if (input.multipart) {
      const form = new FormData();
      for (const [k, v] of defined(input.multipart.fields)) form.set(k, String(v));
      for (const [field, file] of Object.entries(input.multipart.files ?? {})) form.set(field, new Blob([await readFile(file)]), path.basename(file));
      body = form;
    }
    const res = await fetch(url, { method: operation.method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    if (!res.ok) throw new ApiCallError(res.status, parsed, operation);
    return schema.parse(parsed) as z.output<S>;
  }

  /** A file behind a link the API gave (batch results), fetched with the same key. */
  async function download(link: string): Promise<Buffer> {
    const res = await fetch(link, { headers: { 'x-ca-accesskeyid': config.accessKeyId, 'x-ca-version': '1' } });
    if (!res.ok) throw new Error(`cannot download ${link}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  return { call, download, config };
}

export type IrisClient = ReturnType<typeof createClient>;
