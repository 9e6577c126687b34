import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { signInternal } from '@iris/shared';
import { requestLogOptions } from './request-log.js';

describe('backend log lines', () => {
  it('carry the caller’s request_id as the log id, and the account', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const app = Fastify({ logger: { level: 'info', stream }, ...requestLogOptions });
    app.get('/x', async (request) => {
      request.log.info('inside the handler');
      return { id: request.id };
    });
    const headers = await signInternal('secret-secret-secret', { method: 'GET', pathWithQuery: '/x', accountId: 42, context: { requestId: 'abc123requestid', lang: 'en' } });
    const res = await app.inject({ method: 'GET', url: '/x', headers });
    expect(res.json().id).toBe('abc123requestid');
    const ofCall = lines.filter((l) => l.request_id === 'abc123requestid');
    expect(ofCall.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'inside the handler', 'request completed']));
    expect(ofCall.every((l) => l.account === 42)).toBe(true);

    const plain = await app.inject({ method: 'GET', url: '/x', headers: { 'x-iris-context': 'not base64 json' } });
    expect(plain.json().id).toMatch(/^[a-z0-9]{16}$/);
    await app.close();
  });
});
