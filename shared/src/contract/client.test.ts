import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiCallError, ContractViolation, checkAnswer, createApiClient, findOperation } from './client.js';
import { ADMIN_OPERATIONS, OPERATIONS, operationById } from './index.js';

const dataSet = { id: 's1', name: 'n', description: '', created_at: '2026-01-01T00:00:00Z', modified_at: '2026-01-01T00:00:00Z', creator_id: 1, n_downloaded: 0, n_failed: 0, n_items: 0, status: 'downloaded' };

/** A loopback server answering each path with a fixed status and body, recording what it received. */
const answers: Record<string, { status: number; body: unknown }> = {
  '/image_sets/_0000014/good': { status: 200, body: { ...dataSet, request_id: 'r1' } },
  '/image_sets/_0000014/drifted': { status: 200, body: { ...dataSet, status: 'nearly', request_id: 'r2' } },
  '/image_sets/_0000014/refused': { status: 404, body: { error_code: 2001, message: 'image set does not exist', request_id: 'r3' } },
  '/image_sets/_0000014/badshape': { status: 404, body: { error: 'nope' } },
  '/batch/_1000001/task/apply': { status: 400, body: { data: { error_code: 400011, message: 'task x does not exist' }, is_error: 1, request_id: 'r4' } },
};
let server: http.Server;
let baseUrl: string;
const received: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      const answer = answers[new URL(req.url!, 'http://x').pathname] ?? { status: 404, body: { error_code: 1108, message: 'no', request_id: 'r' } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the typed client', () => {
  const client = () => createApiClient({ baseUrl, headers: () => ({ 'x-ca-accesskeyid': 'k1', 'x-ca-version': '1' }) });

  it('takes method and path from the operation and answers with the parsed response', async () => {
    const set = await client().call('getImageSet', { params: { image_set_id: 'good' } });
    expect(set.status).toBe('downloaded');
    expect(set.request_id).toBe('r1');
    expect(received.at(-1)).toMatchObject({ method: 'GET', url: '/image_sets/_0000014/good', headers: { 'x-ca-accesskeyid': 'k1' } });
  });

  it('fails loudly when a success answer does not match its schema', async () => {
    const err = await client().call('getImageSet', { params: { image_set_id: 'drifted' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractViolation);
    expect((err as ContractViolation).message).toContain('status');
  });

  it('rejects a refusal in its family shape with ApiCallError and its code, a refusal in another shape with ContractViolation', async () => {
    const refused = await client().call('getImageSet', { params: { image_set_id: 'refused' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiCallError);
    expect((refused as ApiCallError).code).toBe(2001);
    expect((await client().call('getImageSet', { params: { image_set_id: 'badshape' } }).catch((e: unknown) => e))).toBeInstanceOf(ContractViolation);
    const batch = await client().call('applyBatchTask', { form: { task_id: 'x' } }).catch((e: unknown) => e);
    expect((batch as ApiCallError).code).toBe(400011);
    expect(received.at(-1)).toMatchObject({ method: 'POST', body: 'task_id=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  });

  it('knows every operation id as a type (a misspelt id does not compile)', () => {
    // @ts-expect-error not an operation of the contract
    const misspelt = () => client().call('getImageSets', { params: { image_set_id: 'good' } });
    expect(typeof misspelt).toBe('function');
  });

  it('refuses to call with a path parameter missing', async () => {
    await expect(client().call('getImageSet')).rejects.toThrow(/image_set_id is missing/);
  });
});

describe('finding the operation of a call', () => {
  it('finds every operation by its own method and path', () => {
    for (const operation of [...OPERATIONS, ...ADMIN_OPERATIONS]) {
      const path = operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'kind' ? 'image_sets' : name === 'region' ? 'cn-east' : `v${name.length}x`));
      const found = findOperation(operation.method, `${path}?a=1`);
      // Analysis operations share one route: a made-up service id stays with the word's operation.
      expect(found?.id, `${operation.method} ${path}`).toBe(operation.id);
    }
  });

  it('tells the analysis operations apart by the service family, and knows nothing of unknown paths', () => {
    expect(findOperation('POST', '/detect/_0000039')?.id).toBe('classify');
    expect(findOperation('POST', '/detect/_0000049')?.id).toBe('detect');
    expect(findOperation('GET', '/get_image_sets/_0000014')?.id).toBe('listImageSets');
    expect(findOperation('POST', '/admin/accounts/3/keys')?.id).toBe('adminEnsureKey');
    expect(findOperation('GET', '/nothing/here/at/all')).toBeUndefined();
  });

  it('checks 204 answers and file answers', () => {
    expect(checkAnswer(operationById('deleteImageSet'), 204, null)).toBeUndefined();
    expect(() => checkAnswer(operationById('getImageSet'), 204, null)).toThrow(ContractViolation);
    expect(checkAnswer(operationById('getBatchFile'), 200, 'http://a/1.jpg')).toBe('http://a/1.jpg');
  });
});
