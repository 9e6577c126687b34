/** Helpers for the batch tests: prepare/apply the way the edge forwards them, polling, result files. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { newResourceId, type Quotas } from '@iris/shared';
import { multipart, type TestBackend } from '../support/test-app.js';

export type Answer = LightMyRequestResponse;

/** Task details as the API answers them (fields depend on the state). */
export interface TaskData {
  csv: string;
  received_time: string;
  service_id: string;
  state: string;
  task_id: string;
  total: number;
  success?: number;
  download_urls?: string[];
  estimated_processing_time?: number;
  estimated_waiting_time?: number;
}

/** One line of a result file. */
export interface ResultLine {
  url: string;
  line: number;
  result?: Record<string, unknown>;
  error?: { error_code: number; message: string };
}

export function urlsFile(content: string | Buffer, extra: Record<string, string> = {}) {
  return multipart({ ...extra, urls: { filename: 'urls.txt', content, contentType: 'text/plain' } });
}

export async function prepare(backend: TestBackend, serviceId: string | null, content: string | Buffer | null, options: { extra?: Record<string, string>; accountId?: number } = {}): Promise<Answer & { taskId: string }> {
  const taskId = newResourceId();
  const parts: Parameters<typeof multipart>[0] = { ...options.extra };
  if (serviceId !== null) parts.service_id = serviceId;
  if (content !== null) parts.urls = { filename: 'urls.txt', content, contentType: 'text/plain' };
  const body = multipart(parts);
  const res = await backend.call({ method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: taskId, accountId: options.accountId ?? 1, payload: body.payload, headers: body.headers });
  return Object.assign(res, { taskId });
}

export async function apply(backend: TestBackend, taskId: string, options: { accountId?: number; quotas?: Quotas } = {}): Promise<Answer> {
  return backend.call({
    method: 'POST',
    url: '/batch/_1000001/task/apply',
    accountId: options.accountId ?? 1,
    ...(options.quotas ? { quotas: options.quotas } : {}),
    payload: `task_id=${taskId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

export async function info(backend: TestBackend, taskId: string, accountId = 1): Promise<Answer> {
  return backend.call({ method: 'GET', url: `/batch/_1000001/task/info/${taskId}`, accountId });
}

export function expectBatchError(res: Answer, code: number, status = 400): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ is_error: 1, request_id: expect.any(String), data: { error_code: code, message: expect.any(String) } });
  return body.data;
}

export async function waitForState(backend: TestBackend, taskId: string, states: string[], timeoutMs = 120_000): Promise<TaskData> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const data = (await info(backend, taskId)).json().data as TaskData;
    if (states.includes(data.state)) return data;
    if (Date.now() > until) throw new Error(`task ${taskId} is still ${data.state} (${data.success ?? 0}/${data.total})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Path and query of a signed link (the backend is called directly, as the edge would forward it). */
export function linkPath(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

export function jsonLines(text: string): ResultLine[] {
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ResultLine);
}
