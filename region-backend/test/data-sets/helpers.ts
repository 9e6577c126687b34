/** Small helpers for the data-set tests: creating sets the way the edge does, polling, CSV/tar.gz files. */
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { expect } from 'vitest';
import { newResourceId } from '@iris/shared';
import { multipart, type TestBackend } from '../support/test-app.js';
import { waitUntil } from '../support/wait-for.js';

export const TIME_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export async function createImageSet(backend: TestBackend, name = 'set', accountId = 1): Promise<string> {
  const id = newResourceId();
  const res = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: id, accountId, payload: { name } });
  expect(res.statusCode).toBe(200);
  return id;
}

/** Polls until `done` holds (see support/wait-for.ts); 30 s unless told otherwise. */
export function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  return waitUntil(probe, done, timeoutMs);
}

export function fileUpload(field: string, content: Buffer | string, filename = 'data.csv'): { payload: Buffer; headers: Record<string, string> } {
  return multipart({ [field]: { filename, content, contentType: 'text/csv' } });
}

export async function tarGz(name: string, content: string | Buffer, extra: { name: string; content: string }[] = []): Promise<Buffer> {
  const pack = tar.pack();
  for (const entry of extra) pack.entry({ name: entry.name }, entry.content);
  pack.entry({ name }, typeof content === 'string' ? content : content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  return zlib.gzipSync(Buffer.concat(chunks));
}
