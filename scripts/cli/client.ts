/**
 * The CLI's client: the contract's typed client (`@iris/shared/client`) with the profile's key and
 * language, and files given as paths on disk. Each call names a contract operation; its answer is parsed
 * by the operation's response schema (an answer off the contract throws ContractViolation).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { OperationId, ResponseOf } from '@iris/shared';
import { createApiClient, type CallInput as ContractCallInput, type Fields } from '@iris/shared/client';

export { ApiCallError, ContractViolation } from '@iris/shared/client';

export interface ClientConfig {
  urlRoot: string;
  accessKeyId: string;
  lang: 'en' | 'zh';
}

export interface CallInput extends Omit<ContractCallInput, 'multipart'> {
  /** Sent as multipart: text fields and files (path on disk). */
  multipart?: { fields?: Fields; files?: Record<string, string> };
}

async function formData(multipart: NonNullable<CallInput['multipart']>): Promise<FormData> {
  const form = new FormData();
  for (const [k, v] of Object.entries(multipart.fields ?? {})) if (v !== undefined) form.set(k, String(v));
  for (const [field, file] of Object.entries(multipart.files ?? {})) form.set(field, new Blob([await readFile(file)]), path.basename(file));
  return form;
}

export function createClient(config: ClientConfig) {
  const headers = () => ({ 'x-ca-accesskeyid': config.accessKeyId, 'x-ca-version': '1', 'accept-language': config.lang === 'zh' ? 'zh-cn' : 'en-us' });
  const api = createApiClient({ baseUrl: config.urlRoot, headers });

  async function call<Id extends OperationId>(id: Id, input: CallInput = {}): Promise<ResponseOf<Id>> {
    const { multipart, ...rest } = input;
    return api.call(id, multipart ? { ...rest, multipart: await formData(multipart) } : rest);
  }

  /** A file behind a link the API gave (batch results), fetched with the same key. */
  async function download(link: string): Promise<Buffer> {
    const res = await fetch(link, { headers: headers() });
    if (!res.ok) throw new Error(`cannot download ${link}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  return { call, download, config };
}

export type IrisClient = ReturnType<typeof createClient>;
