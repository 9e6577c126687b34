import { describe, expect, it } from 'vitest';
import { INTERNAL_MAX_SKEW_MS } from '@iris/shared';
import { NonceMemory } from './internal-nonces.js';

describe('the nonce memory of edge signatures', () => {
  it('refuses a replay for as long as the signature is valid, and forgets it afterwards', () => {
    const memory = new NonceMemory();
    const t = 1_700_000_000_000;
    expect(memory.claim('a', t, t)).toBe(true);
    expect(memory.claim('a', t, t + 1000)).toBe(false);
    expect(memory.claim('a', t, t + INTERNAL_MAX_SKEW_MS)).toBe(false); // still valid at the very edge of the window
    expect(memory.claim('b', t, t + INTERNAL_MAX_SKEW_MS + 1000)).toBe(true);
    expect(memory.size).toBe(1); // 'a' dropped: its signature can no longer be replayed
  });

  it('never refuses a fresh call for lack of memory, however many arrive, and holds only the window', () => {
    const memory = new NonceMemory();
    const t0 = 1_700_000_000_000;
    // An edge whose clock is a skew ahead signs one call that stays valid for two windows...
    expect(memory.claim('ahead', t0 + INTERNAL_MAX_SKEW_MS - 1, t0)).toBe(true);
    // ...then 2,500 calls a second for 8 minutes (1.2 M nonces, more than any fixed cap of a million).
    const perSecond = 2500;
    let refused = 0;
    let largest = 0;
    for (let s = 0; s < 480; s++) {
      const now = t0 + s * 1000;
      for (let i = 0; i < perSecond; i++) if (!memory.claim(`${s}:${i}`, now, now)) refused++;
      largest = Math.max(largest, memory.size);
    }
    expect(refused).toBe(0);
    // Expired nonces behind the long-lived one were dropped: at most one window (plus a second) of calls is held.
    expect(largest).toBeLessThanOrEqual(perSecond * (INTERNAL_MAX_SKEW_MS / 1000 + 2) + 1);
    expect(memory.claim('ahead', t0, t0 + 480_000)).toBe(false);
  });
});
