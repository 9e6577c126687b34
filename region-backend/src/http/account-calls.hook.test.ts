import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { AccountCalls, PARALLEL_MEMORY_MS, registerAccountCalls } from './account-calls.hook.js';

describe('calls in flight per account', () => {
  it('counts the calls each account has open, and forgets them when answered or failed', async () => {
    const app = Fastify();
    // Stands in for the edge-signature hook, which sets the caller's context before this one runs.
    app.decorateRequest('ctx', null as unknown as FastifyRequest['ctx']);
    app.addHook('onRequest', async (request) => {
      const account = request.headers['x-test-account'];
      if (account) request.ctx = { accountId: Number(account) } as FastifyRequest['ctx'];
    });
    const calls = registerAccountCalls(app);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: Record<string, number>[] = [];
    let arrived = 0;
    app.get('/slow', async () => {
      arrived++;
      await gate;
      seen.push({ a7: calls.inFlight('7'), a8: calls.inFlight('8') });
      return { ok: true };
    });
    app.get('/fails', async () => {
      throw new Error('boom');
    });
    await app.ready();
    const call = (account: string, url = '/slow') => app.inject({ method: 'GET', url, headers: { 'x-test-account': account } });
    const pending = [call('7'), call('7'), call('8')];
    while (arrived < 3) await new Promise((r) => setTimeout(r, 5));
    expect([calls.inFlight('7'), calls.inFlight('8'), calls.inFlight('9')]).toEqual([2, 1, 0]);
    release();
    await Promise.all(pending);
    expect(seen[0]).toEqual({ a7: 2, a8: 1 });
    expect((await call('7', '/fails')).statusCode).toBe(500);
    // A call without an account (the edge's health checks) is not counted.
    await app.inject({ method: 'GET', url: '/fails' });
    expect([calls.inFlight('7'), calls.inFlight('8')]).toEqual([0, 0]);
    await app.close();
  });

  it('tells whether another account is being served: a call in flight, or one that ended a moment ago', async () => {
    const calls = new AccountCalls();
    expect(calls.othersActive('1')).toBe(false);
    calls.enter('1');
    expect(calls.othersActive('1')).toBe(false); // only itself
    expect(calls.othersActive('2')).toBe(true);
    calls.enter('2');
    calls.leave('2');
    expect(calls.othersActive('1', 200)).toBe(true); // 2 just ended: its next call may be on its way
    await new Promise((r) => setTimeout(r, 60));
    expect(calls.othersActive('1', 30)).toBe(false);
    expect(calls.othersActive('1', 200)).toBe(true);
    calls.leave('1');
    expect(calls.othersActive('2', 200)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.othersActive('1')).toBe(false); // past RECENT_CALL_MS, 2's end is forgotten
  });

  it('counts an account that had several calls at once as a parallel caller for a second, a sequential one as single', async () => {
    const calls = new AccountCalls();
    // A sequential caller: one call at a time, however many.
    for (let i = 0; i < 5; i++) {
      calls.enter('1');
      expect(calls.concurrency('1')).toBe(1);
      calls.leave('1');
    }
    expect(calls.concurrency('1')).toBe(0);
    // A parallel caller keeps counting 2 while its in-flight count dips to one (a flood paced by the edge).
    calls.enter('2');
    calls.enter('2');
    calls.leave('2');
    expect([calls.inFlight('2'), calls.concurrency('2')]).toEqual([1, 2]);
    calls.leave('2');
    calls.enter('2');
    expect(calls.concurrency('2')).toBe(2);
    calls.enter('2');
    calls.enter('2');
    expect(calls.concurrency('2')).toBe(3);
    calls.leave('2');
    calls.leave('2');
    expect(calls.concurrency('1')).toBe(0); // another account's standing is its own
    await new Promise((r) => setTimeout(r, PARALLEL_MEMORY_MS + 50));
    // A second without a second call at once: single again.
    expect([calls.inFlight('2'), calls.concurrency('2')]).toEqual([1, 1]);
    calls.leave('2');
  });
});
