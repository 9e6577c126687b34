import { describe, expect, it } from 'vitest';
import type { CallResult } from './edge-caller.js';
import { callStages, parseServerTiming, seriesVerdicts, slopePerHour, unexpectedFailures } from './soak-report.js';
import type { Outcome } from './soak-traffic.js';

const outcome = (action: string, result: Partial<CallResult>): Outcome => ({ action, account: 'a', result: { status: 200, code: undefined, ms: 1, body: '', ...result } });

describe('the soak verdict', () => {
  it('places a call\'s time by its Server-Timing stages: the backend\'s, the edge\'s own share, the way to the edge', () => {
    expect([...parseServerTiming('body;dur=1.5, decode;dur=2, desc;desc="x", backend;dur=10.25, edge;dur=14')]).toEqual([
      ['body', 1.5], ['decode', 2], ['backend', 10.25], ['edge', 14],
    ]);
    expect(Object.fromEntries(callStages({ ms: 20, serverTiming: 'queue;dur=3, backend;dur=10, edge;dur=14' }))).toEqual({
      queue: 3, backend: 10, 'edge only': 4, 'client ↔ edge': 6, total: 20,
    });
    expect(Object.fromEntries(callStages({ ms: 7 }))).toEqual({ total: 7 });
  });

  it('fits the slope per hour by least squares', () => {
    expect(slopePerHour([[0, 10], [1800, 20], [3600, 30]])).toBeCloseTo(20);
    expect(slopePerHour([[0, 5], [60, 7], [120, 5], [180, 7]])).toBeCloseTo(24);
    expect(slopePerHour([[0, 1]])).toBe(0);
  });

  it('judges a series by its slope after warm-up only', () => {
    const samples = [0, 600, 1200, 1800, 2400, 3000].map((t) => ({ t, values: new Map([['RSS MB · backend cn-east', t < 1200 ? t : 1200 + (t - 1200) / 60]]) }));
    const [rss] = seriesVerdicts(samples, 1200);
    expect(rss).toMatchObject({ start: 0, end: 1230, min: 0, max: 1230, pass: true });
    expect(rss!.slope).toBeCloseTo(60);
    const [still] = seriesVerdicts(samples, 0);
    expect(still!.pass).toBe(false);
  });

  it('counts every 5xx but the documented refusals, and a missing answer only where one was due', () => {
    const failures = unexpectedFailures([
      outcome('analysis upload', { status: 503, code: 9006 }),
      outcome('URL add', { status: 500, code: 4001 }),
      outcome('analysis upload', { status: 503, code: undefined, body: 'Your worker restarted mid-request.' }),
      outcome('search upload', { status: 504, code: 9007 }),
      outcome('aborted upload', { status: 0, error: 'aborted by the caller' }),
      outcome('refused: oversized', { status: 0, error: 'write EPIPE' }),
      outcome('set reads', { status: 0, error: 'socket hang up' }),
      outcome('random key', { status: 401, code: 1102 }),
    ]);
    expect(failures.map((f) => `${f.action} ${f.result.status}`)).toEqual(['analysis upload 503', 'search upload 504', 'set reads 0']);
  });
});
