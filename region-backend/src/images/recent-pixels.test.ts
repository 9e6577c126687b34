import { describe, expect, it } from 'vitest';
import { RecentPixels } from './recent-pixels.js';

const pixels = (bytes: number) => ({ data: new Uint8Array(bytes), width: bytes / 3, height: 1 });

describe('RecentPixels', () => {
  it('hands each entry out once, refuses what does not fit, and drops entries past their age', () => {
    let now = 0;
    const recent = new RecentPixels(30, 1000, () => now);
    expect(recent.put('a', pixels(12))).toBe(true);
    expect(recent.put('b', pixels(12))).toBe(true);
    // Full: the newcomer is refused, the older entries (taken first) stay.
    expect(recent.put('c', pixels(12))).toBe(false);
    expect(recent.put('a', pixels(3))).toBe(false);
    expect(recent.take('a')?.data.length).toBe(12);
    expect(recent.take('a')).toBeUndefined();
    expect(recent.size).toBe(12);
    now = 1500;
    // Past its age: not handed out, and its bytes are freed for newcomers.
    expect(recent.take('b')).toBeUndefined();
    expect(recent.put('c', pixels(12))).toBe(true);
    now = 2000;
    expect(recent.put('d', pixels(12))).toBe(true);
    now = 2600;
    expect(recent.put('e', pixels(18))).toBe(true); // c expired on this put
    expect(recent.take('c')).toBeUndefined();
    expect(recent.take('d')?.data.length).toBe(12);
    expect(new RecentPixels(0, 1000).put('x', pixels(3))).toBe(false);
    expect(new RecentPixels(0, 1000).hasRoom()).toBe(false);
    // Full, until the oldest entry expires.
    now = 3000;
    expect(recent.put('f', pixels(12))).toBe(true);
    expect(recent.hasRoom()).toBe(false);
    now = 3700;
    expect(recent.hasRoom()).toBe(true);
    // Without puts, expired entries go when asked to.
    now = 4100;
    recent.dropExpired();
    expect(recent.size).toBe(0);
  });

  it('lets entries nobody took make room once nothing has been taken for the stale time, and only then', () => {
    let now = 0;
    const recent = new RecentPixels(24, 60_000, () => now, 10_000);
    expect(recent.hasRoom()).toBe(true);
    expect(recent.put('a', pixels(12))).toBe(true);
    expect(recent.hasRoom()).toBe(true);
    expect(recent.put('b', pixels(12))).toBe(true);
    now = 5_000;
    // Not stale yet: the newcomer is refused.
    expect(recent.put('c', pixels(12))).toBe(false);
    now = 11_000;
    // Nothing taken for 10 s: the oldest stale entry makes room, no more than needed.
    expect(recent.put('c', pixels(12))).toBe(true);
    expect(recent.take('a')).toBeUndefined();
    expect(recent.take('b')?.data.length).toBe(12);
    // While takers take, the oldest stay (they are next), even when stale.
    expect(recent.put('d', pixels(12))).toBe(true);
    now = 30_000;
    expect(recent.take('c')?.data.length).toBe(12);
    expect(recent.put('e', pixels(12))).toBe(true);
    expect(recent.hasRoom()).toBe(false);
    expect(recent.put('f', pixels(12))).toBe(false);
    expect(recent.take('d')?.data.length).toBe(12);
    // Larger than the whole table: never kept.
    expect(recent.put('g', pixels(27))).toBe(false);
  });
});
