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

  it('holds producers back while the table is full and something takes, each taken entry letting one go on', async () => {
    const recent = new RecentPixels(24, 60_000, Date.now, 60_000);
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    expect(recent.put('a', pixels(12), true)).toBe(true);
    expect(recent.put('b', pixels(12), true)).toBe(true);
    expect(recent.take('a')?.data.length).toBe(12);
    expect(recent.put('c', pixels(12), true)).toBe(true);
    // Full while something takes: producers wait, and each take lets the oldest waiter go.
    const gone: string[] = [];
    const producer = (name: string) => recent.reserveRoom(60_000).then((release) => (gone.push(name), release));
    const first = producer('first');
    const second = producer('second');
    await settle();
    expect(gone).toEqual([]);
    recent.take('b');
    const releaseFirst = await first;
    await settle();
    // The first holds the room b left until it has put its picture: the second waits on.
    expect(gone).toEqual(['first']);
    expect(recent.put('d', pixels(12), true)).toBe(true);
    releaseFirst();
    await settle();
    expect(gone).toEqual(['first']);
    recent.take('c');
    (await second)();
    expect(gone).toEqual(['first', 'second']);
    // With room, no wait.
    (await recent.reserveRoom(60_000))();
  });

  it('lets a producer go on after its longest wait, when its wait is aborted, or once nothing has taken for the stale time', async () => {
    const full = () => {
      const recent = new RecentPixels(12, 60_000, Date.now, 60_000);
      recent.put('a', pixels(12), true);
      recent.take('a');
      recent.put('b', pixels(12), true);
      return recent;
    };
    // The longest wait: no take comes.
    const waited = full();
    (await waited.reserveRoom(5))();
    expect(waited.size).toBe(12);
    // An aborted wait.
    const aborted = new AbortController();
    const waiting = full().reserveRoom(600_000, aborted.signal);
    aborted.abort();
    (await waiting)();
    // Nothing taken for the stale time since the table filled: the taker is gone, and a full table holds nobody
    // back from then on (with the clock stopped, a second wait could only end that way).
    let now = 0;
    const stale = new RecentPixels(12, 600_000, () => now, 50);
    stale.put('a', pixels(12), true);
    stale.take('a');
    now = 40;
    stale.put('b', pixels(12), true);
    const waitingForTaker = stale.reserveRoom(600_000);
    now = 90;
    (await waitingForTaker)();
    (await stale.reserveRoom(600_000))();
    expect(stale.size).toBe(12);
    // Entries a put would drop for room (older than the stale time, nothing taken since) hold nobody back.
    now = 200;
    (await stale.reserveRoom(600_000))();
    expect(stale.size).toBe(0);
    // Never taken from: a first taker gets the stale time to show up.
    let clock = 0;
    const first = new RecentPixels(12, 600_000, () => clock, 50);
    first.put('a', pixels(12), true);
    let gone = false;
    const waitingForFirst = first.reserveRoom(600_000).then((release) => ((gone = true), release()));
    await new Promise((resolve) => setImmediate(resolve));
    expect(gone).toBe(false);
    clock = 50;
    await waitingForFirst;
    expect(first.size).toBe(12);
  });

  it('drops the entries a take passes over by more than the stale time, freeing their room for waiting producers', async () => {
    let now = 0;
    const recent = new RecentPixels(36, 60_000, () => now, 5_000);
    recent.put('elsewhere', pixels(12), true); // embedded by another process: never taken here
    now = 4_000;
    recent.put('near', pixels(12), true);
    now = 6_000;
    recent.put('next', pixels(12), true);
    expect(recent.take('next')?.data.length).toBe(12);
    // Passed over by 6 s: gone; passed over by 2 s: kept (takers of two sets may be a little apart).
    expect(recent.size).toBe(12);
    expect(recent.take('elsewhere')).toBeUndefined();
    expect(recent.take('near')?.data.length).toBe(12);
    recent.put('a', pixels(12), true);
    now = 7_000;
    recent.put('b', pixels(12), true);
    now = 10_000;
    recent.put('t', pixels(12), true);
    recent.take('t');
    now = 12_500;
    recent.put('c', pixels(12), true);
    const waiting = recent.reserveRoom(60_000);
    expect(recent.put('d', pixels(12), true)).toBe(false); // full, and takers are active
    expect(recent.take('c')?.data.length).toBe(12);
    (await waiting)();
    expect(recent.size).toBe(0);
  });

  it('lets a wanted picture take the room of pictures nobody wanted, which hold no producer back', async () => {
    const recent = new RecentPixels(24, 60_000, Date.now, 60_000);
    recent.put('wanted', pixels(12), true);
    recent.take('wanted');
    recent.put('unwanted 1', pixels(12));
    recent.put('unwanted 2', pixels(12));
    expect(recent.put('unwanted 3', pixels(12))).toBe(false);
    (await recent.reserveRoom(60_000))();
    expect(recent.put('next', pixels(12), true)).toBe(true);
    expect(recent.take('unwanted 1')).toBeUndefined();
    expect(recent.take('unwanted 2')?.data.length).toBe(12);
    expect(recent.take('next')?.data.length).toBe(12);
  });
});
