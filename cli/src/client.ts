/**
 * The CLI's client: the contract's typed client with the profile's key, language and (when there is one)
 * secret, which signs every call; files are given as paths on disk and streamed from it. Each call names a
 * contract operation; its answer is parsed by the operation's response schema (an answer off the contract
 * throws ContractViolation).
 */
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { createApiClient, type ContractCallInput, type Fields, type OperationId, type ResponseOf } from './shared.js';
import { signingFetch } from './signing.js';

export { ApiCallError, ContractViolation } from './shared.js';

export interface ClientConfig {
  urlRoot: string;
  accessKeyId: string;
  lang: 'en' | 'zh';
  /** Signs every call when set. */
  secret?: string;
}

export interface CallInput extends Omit<ContractCallInput, 'multipart'> {
  /** Sent as multipart: text fields and files (path on disk, or `{ path, name }` to send it under another name). */
  multipart?: { fields?: Fields; files?: Record<string, string | { path: string; name: string }> };
}

async function formData(multipart: NonNullable<CallInput['multipart']>): Promise<FormData> {
  const form = new FormData();
  for (const [k, v] of Object.entries(multipart.fields ?? {})) if (v !== undefined) form.set(k, String(v));
  for (const [field, file] of Object.entries(multipart.files ?? {})) {
    const { path: filePath, name } = typeof file === 'string' ? { path: file, name: path.basename(file) } : file;
    form.set(field, await openAsBlob(filePath), name);
  }
  return form;
}

export function createClient(config: ClientConfig, options: { fetch?: typeof fetch } = {}) {
  const headers = () => ({ 'x-ca-accesskeyid': config.accessKeyId, 'x-ca-version': '1', 'accept-language': config.lang === 'zh' ? 'zh-cn' : 'en-us' });
  const base = options.fetch ?? fetch;
  const api = createApiClient({ baseUrl: config.urlRoot, headers, fetch: config.secret ? signingFetch(config.secret, base) : base });

  async function call<Id extends OperationId>(id: Id, input: CallInput = {}): Promise<ResponseOf<Id>> {
    const { multipart, ...rest } = input;
    return api.call(id, multipart ? { ...rest, multipart: await formData(multipart) } : rest);
  }

  /** A file behind a link the API gave (batch results, signed links), fetched with the same key. */
  async function download(link: string): Promise<Buffer> {
    const res = await fetch(link, { headers: headers() });
    if (!res.ok) throw new Error(`cannot download ${link}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  return { call, download, config };
}

export type IrisClient = ReturnType<typeof createClient>;
