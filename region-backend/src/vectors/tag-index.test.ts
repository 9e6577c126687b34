import { describe, expect, it } from 'vitest';
import { TagIndex } from './tag-index.js';
import { parseTagFilter, type TagFilter } from './tag-filter.js';

function filter(text: string): TagFilter {
  return parseTagFilter(text)!;
}

function matching(index: TagIndex, text: string): number[] {
  const slots: number[] = [];
  index.forEachMatch(index.match(filter(text)), (slot) => slots.push(slot));
  return slots.sort((a, b) => a - b);
}

describe('TagIndex', () => {
  it('groups items by tag combination and resolves AND / OR filters to the matching slots', () => {
    const index = new TagIndex();
    index.ensureCapacity(10);
    index.assign(0, ['MALE', 'SHOES', 'TMALL']);
    index.assign(1, ['SHOES', 'MALE', 'TMALL']);
    index.assign(2, ['MALE', 'SHOES', 'TAOBAO']);
    index.assign(3, ['FEMALE', 'SHOES', 'TAOBAO']);
    index.assign(4, ['女装']);
    index.assign(5, []);
    expect(index.tagsetCount).toBe(4);
    expect(matching(index, 'MALE|SHOES')).toEqual([0, 1, 2]);
    expect(matching(index, '{"and": ["SHOES", {"or": ["TMALL", "TAOBAO"]}]}')).toEqual([0, 1, 2, 3]);
    expect(matching(index, '{"and": ["MALE", {"or": ["TAOBAO", "女装"]}]}')).toEqual([2]);
    expect(matching(index, '{"or": ["女装", "FEMALE"]}')).toEqual([3, 4]);
    expect(matching(index, 'UNKNOWN')).toEqual([]);
    expect(matching(index, 'MALE|UNKNOWN')).toEqual([]);
    const match = index.match(filter('TAOBAO'));
    expect(match.matches).toBe(2);
    expect(index.allows(match, 2)).toBe(true);
    expect(index.allows(match, 0)).toBe(false);
    expect(index.allows(match, 5)).toBe(false);
  });

  it('moves a slot between tag sets on reassignment and forgets unused tags', () => {
    const index = new TagIndex();
    index.ensureCapacity(4);
    index.assign(0, ['a', 'b']);
    index.assign(1, ['a']);
    index.assign(0, ['c']);
    expect(matching(index, 'a')).toEqual([1]);
    expect(matching(index, 'b')).toEqual([]);
    expect(index.tagsOf(0)).toEqual(['c']);
    index.release(1);
    index.release(0);
    index.release(0);
    expect(index.tagCount).toBe(0);
    expect(index.tagsetCount).toBe(0);
    index.assign(2, ['b']);
    expect(matching(index, 'b')).toEqual([2]);
  });

  it('keeps member lists consistent under churn (swap-removal)', () => {
    const index = new TagIndex();
    index.ensureCapacity(200);
    for (let slot = 0; slot < 200; slot++) index.assign(slot, slot % 2 ? ['odd', 'all'] : ['all']);
    for (let slot = 0; slot < 200; slot += 3) index.release(slot);
    expect(matching(index, 'all')).toEqual([...Array(200).keys()].filter((s) => s % 3 !== 0));
    expect(matching(index, 'odd')).toEqual([...Array(200).keys()].filter((s) => s % 3 !== 0 && s % 2 === 1));
  });

  it('round-trips through a snapshot with dense numbering', () => {
    const index = new TagIndex();
    index.ensureCapacity(6);
    index.assign(0, ['x', 'y']);
    index.assign(1, ['z']);
    index.assign(2, ['y']);
    index.assign(3, ['x', 'y']);
    index.release(1);
    const snap = index.snapshot(5);
    expect(snap.tags.sort()).toEqual(['x', 'y']);
    const copy = TagIndex.fromSnapshot(snap);
    expect(matching(copy, 'x|y')).toEqual([0, 3]);
    expect(matching(copy, 'y')).toEqual([0, 2, 3]);
    expect(copy.tagsOf(1)).toEqual([]);
  });

  it('refuses an inconsistent snapshot', () => {
    expect(() => TagIndex.fromSnapshot({ tags: ['a'], tagsets: [[], [0]], slotTagset: Uint32Array.of(2) })).toThrow(/unknown tag set/);
    expect(() => TagIndex.fromSnapshot({ tags: ['a'], tagsets: [[], [3]], slotTagset: Uint32Array.of(1) })).toThrow(/unknown tag/);
    expect(() => TagIndex.fromSnapshot({ tags: ['a'], tagsets: [[], [0], [0]], slotTagset: Uint32Array.of(1) })).toThrow(/duplicate/);
  });
});
