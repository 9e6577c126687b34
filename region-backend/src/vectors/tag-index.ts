/**
 * Inverted index of item tags for filtered search, keyed by slot (the store's dense item number).
 *
 * Items are grouped by their exact tag combination ("tag set"): catalogues repeat a few combinations
 * (`MALE|SHOES|TMALL`) over many items, so a filter is evaluated once per tag set rather than once per item,
 * and a per-slot lookup during graph search is two typed-array reads. Two levels of postings:
 * tag → tag sets containing it, tag set → member slots.
 */
import { evaluateTagFilter, normalizeTags, type TagFilter } from './tag-filter.js';

/** The result of resolving a filter against the index; valid until the next change to the index. */
export interface TagMatch {
  /** 1 at every matching tag-set id. */
  readonly allowed: Uint8Array;
  /** Ids of the matching tag sets. */
  readonly tagsets: readonly number[];
  /** Number of items that match. */
  readonly matches: number;
}

/** Serialisable form: dense tag and tag-set numbering, tag set 0 is "no tags". */
export interface TagIndexSnapshot {
  tags: string[];
  /** Tag ids of each tag set; index 0 is the empty set. */
  tagsets: number[][];
  /** Tag-set id per slot (0 for untagged or free slots). */
  slotTagset: Uint32Array;
}

interface Tagset {
  readonly tags: readonly number[];
  readonly key: string;
  readonly members: number[];
}

const NO_TAGSETS: ReadonlySet<number> = new Set();

export class TagIndex {
  private slotTagset = new Uint32Array(0);
  private memberPos = new Uint32Array(0);
  private readonly tagIds = new Map<string, number>();
  private tagNames: (string | undefined)[] = [];
  private tagsetsByTag: (Set<number> | undefined)[] = [];
  private readonly freeTagIds: number[] = [];
  private readonly tagsetByKey = new Map<string, number>();
  private tagsets: (Tagset | undefined)[] = [{ tags: [], key: '', members: [] }];
  private readonly freeTagsetIds: number[] = [];

  get tagCount(): number {
    return this.tagIds.size;
  }

  get tagsetCount(): number {
    return this.tagsetByKey.size;
  }

  ensureCapacity(slots: number): void {
    if (slots <= this.slotTagset.length) return;
    const grown = new Uint32Array(slots);
    grown.set(this.slotTagset);
    this.slotTagset = grown;
    const pos = new Uint32Array(slots);
    pos.set(this.memberPos);
    this.memberPos = pos;
  }

  /** Sets the tags of a slot (replacing earlier ones). The slot must be below the capacity. */
  assign(slot: number, tags: readonly string[]): void {
    this.release(slot);
    const clean = normalizeTags(tags);
    if (clean.length === 0) return;
    const ids = [...new Set(clean.map((t) => this.internTag(t)))].sort((a, b) => a - b);
    const key = ids.join(',');
    const id = this.tagsetByKey.get(key) ?? this.createTagset(ids, key);
    const set = this.tagsets[id]!;
    this.memberPos[slot] = set.members.length;
    set.members.push(slot);
    this.slotTagset[slot] = id;
  }

  /** Forgets the tags of a slot. */
  release(slot: number): void {
    const id = this.slotTagset[slot] ?? 0;
    if (id === 0) return;
    const set = this.tagsets[id]!;
    const pos = this.memberPos[slot]!;
    const last = set.members.pop()!;
    if (last !== slot) {
      set.members[pos] = last;
      this.memberPos[last] = pos;
    }
    this.slotTagset[slot] = 0;
    if (set.members.length === 0) this.dropTagset(id);
  }

  tagsOf(slot: number): string[] {
    const set = this.tagsets[this.slotTagset[slot] ?? 0];
    return set ? set.tags.map((t) => this.tagNames[t]!) : [];
  }

  /** Which tag sets (and how many items) match a filter. Cost grows with the tag sets that mention its tags. */
  match(filter: TagFilter): TagMatch {
    const allowed = new Uint8Array(this.tagsets.length);
    const tagsets: number[] = [];
    let matches = 0;
    for (const id of this.candidates(filter)) {
      if (allowed[id] || !this.tagsetMatches(filter, id)) continue;
      allowed[id] = 1;
      tagsets.push(id);
      matches += this.tagsets[id]!.members.length;
    }
    return { allowed, tagsets, matches };
  }

  /** Hot path of filtered graph search: does the item in this slot match? */
  allows(match: TagMatch, slot: number): boolean {
    return match.allowed[this.slotTagset[slot]!] === 1;
  }

  /** Calls `fn` for every slot whose item matches. */
  forEachMatch(match: TagMatch, fn: (slot: number) => void): void {
    for (const id of match.tagsets) {
      const members = this.tagsets[id]?.members;
      if (members) for (const slot of members) fn(slot);
    }
  }

  snapshot(slots: number): TagIndexSnapshot {
    const tagRemap = new Map<number, number>();
    const tags: string[] = [];
    const tagsetRemap = new Uint32Array(this.tagsets.length);
    const tagsets: number[][] = [[]];
    this.tagsets.forEach((set, id) => {
      if (!set || id === 0) return;
      tagsetRemap[id] = tagsets.length;
      tagsets.push(
        set.tags.map((t) => {
          let dense = tagRemap.get(t);
          if (dense === undefined) {
            dense = tags.length;
            tagRemap.set(t, dense);
            tags.push(this.tagNames[t]!);
          }
          return dense;
        }),
      );
    });
    const slotTagset = new Uint32Array(slots);
    for (let s = 0; s < slots; s++) slotTagset[s] = tagsetRemap[this.slotTagset[s] ?? 0]!;
    return { tags, tagsets, slotTagset };
  }

  /** Replaces the content with a snapshot; throws if it is inconsistent. */
  static fromSnapshot(snapshot: TagIndexSnapshot): TagIndex {
    const index = new TagIndex();
    const { tags, tagsets, slotTagset } = snapshot;
    if (tagsets.length === 0 || tagsets[0]!.length !== 0) throw new Error('tag index: tag set 0 must be empty');
    const ids = tags.map((t) => index.internTag(t));
    if (index.tagIds.size !== tags.length) throw new Error('tag index: duplicate tag names');
    for (let i = 1; i < tagsets.length; i++) {
      const set = tagsets[i]!.map((t) => {
        const id = ids[t];
        if (id === undefined) throw new Error(`tag index: tag set ${i} refers to unknown tag ${t}`);
        return id;
      });
      const sorted = [...new Set(set)].sort((a, b) => a - b);
      const key = sorted.join(',');
      if (sorted.length === 0) throw new Error(`tag index: tag set ${i} is empty`);
      if (index.tagsetByKey.has(key)) throw new Error(`tag index: tag set ${i} is a duplicate`);
      index.createTagset(sorted, key);
    }
    for (const [tag, id] of index.tagIds) {
      if (index.tagsetsByTag[id]!.size > 0) continue;
      index.tagIds.delete(tag);
      index.tagNames[id] = undefined;
      index.tagsetsByTag[id] = undefined;
      index.freeTagIds.push(id);
    }
    index.ensureCapacity(slotTagset.length);
    for (let slot = 0; slot < slotTagset.length; slot++) {
      const id = slotTagset[slot]!;
      if (id === 0) continue;
      const set = index.tagsets[id];
      if (!set) throw new Error(`tag index: slot ${slot} refers to unknown tag set ${id}`);
      index.memberPos[slot] = set.members.length;
      set.members.push(slot);
      index.slotTagset[slot] = id;
    }
    for (let i = 1; i < index.tagsets.length; i++) if (index.tagsets[i]!.members.length === 0) index.dropTagset(i);
    return index;
  }

  private candidates(filter: TagFilter): Iterable<number> {
    switch (filter.kind) {
      case 'tag': {
        const id = this.tagIds.get(filter.tag);
        return id === undefined ? NO_TAGSETS : this.tagsetsByTag[id]!;
      }
      case 'or': {
        const union = new Set<number>();
        for (const f of filter.of) for (const id of this.candidates(f)) union.add(id);
        return union;
      }
      case 'and': {
        // Every match of an AND is a match of each part: the smallest part's candidates suffice.
        let best: Iterable<number> = NO_TAGSETS;
        let bestSize = Infinity;
        for (const f of filter.of) {
          const c = this.candidates(f);
          const size = c instanceof Set ? c.size : Infinity;
          if (size < bestSize) [best, bestSize] = [c, size];
          if (size === 0) break;
        }
        return best;
      }
    }
  }

  private tagsetMatches(filter: TagFilter, tagset: number): boolean {
    return evaluateTagFilter(filter, (tag) => {
      const id = this.tagIds.get(tag);
      return id !== undefined && this.tagsetsByTag[id]!.has(tagset);
    });
  }

  private internTag(tag: string): number {
    let id = this.tagIds.get(tag);
    if (id === undefined) {
      id = this.freeTagIds.pop() ?? this.tagNames.length;
      this.tagIds.set(tag, id);
      this.tagNames[id] = tag;
      this.tagsetsByTag[id] = new Set();
    }
    return id;
  }

  private createTagset(tags: readonly number[], key: string): number {
    const id = this.freeTagsetIds.pop() ?? this.tagsets.length;
    this.tagsets[id] = { tags, key, members: [] };
    this.tagsetByKey.set(key, id);
    for (const t of tags) this.tagsetsByTag[t]!.add(id);
    return id;
  }

  private dropTagset(id: number): void {
    const set = this.tagsets[id]!;
    this.tagsets[id] = undefined;
    this.tagsetByKey.delete(set.key);
    this.freeTagsetIds.push(id);
    for (const t of set.tags) {
      const users = this.tagsetsByTag[t]!;
      users.delete(id);
      if (users.size === 0) {
        this.tagIds.delete(this.tagNames[t]!);
        this.tagNames[t] = undefined;
        this.tagsetsByTag[t] = undefined;
        this.freeTagIds.push(t);
      }
    }
  }
}
