/**
 * Record id ↔ slot. A slot is the store's dense item number: the label in the HNSW graph and the row in the
 * vector and tag arrays. Ids are arbitrary safe integers (PostgreSQL bigserial); slots stay small and dense,
 * and a freed slot is handed to the next new id, so storage does not grow with churn.
 *
 * id → slot is an open-addressing table of slot numbers (linear probing, at most half full), compared through
 * the slot → id array: 4 bytes per table entry, where a Map of a million numbers holds about 30 bytes per id.
 * At a million vectors that is 8 MB instead of about 30 (docs/vector-store.md).
 */
const EMPTY = -1;
const MIN_TABLE = 64;

export class SlotDirectory {
  /** A power of two in size, so `& (length − 1)` wraps a position. */
  private table = new Int32Array(MIN_TABLE).fill(EMPTY);
  private live = 0;
  private ids = new Float64Array(0);
  private readonly free: number[] = [];
  private used = 0;

  /** Live items. */
  get size(): number {
    return this.live;
  }

  /** Slots ever handed out (live + free); every slot is below this. */
  get slotCount(): number {
    return this.used;
  }

  get freeCount(): number {
    return this.free.length;
  }

  slot(id: number): number | undefined {
    const at = this.find(id);
    return at === EMPTY ? undefined : this.table[at]!;
  }

  /** The id in a slot, NaN when the slot is free. */
  idAt(slot: number): number {
    return this.ids[slot] ?? NaN;
  }

  /** The slot a new id would get, so callers can make room before `acquire`. */
  nextFreshSlot(): number {
    return this.free.length ? this.free[this.free.length - 1]! : this.used;
  }

  /** The slot of an id, taking a free or fresh one for a new id. */
  acquire(id: number): { slot: number; isNew: boolean; reused: boolean } {
    const existing = this.slot(id);
    if (existing !== undefined) return { slot: existing, isNew: false, reused: false };
    const reused = this.free.length > 0;
    const slot = reused ? this.free.pop()! : this.used++;
    if (slot >= this.ids.length) this.grow(slot + 1);
    this.ids[slot] = id;
    this.index(slot);
    return { slot, isNew: true, reused };
  }

  /** Frees the slot of an id; returns it, or undefined when the id is unknown. */
  release(id: number): number | undefined {
    const at = this.find(id);
    if (at === EMPTY) return undefined;
    const slot = this.table[at]!;
    this.unindex(at);
    this.ids[slot] = NaN;
    this.free.push(slot);
    return slot;
  }

  forEachLive(fn: (slot: number, id: number) => void): void {
    for (let slot = 0; slot < this.used; slot++) {
      const id = this.ids[slot]!;
      if (!Number.isNaN(id)) fn(slot, id);
    }
  }

  /** Ids per slot (NaN for free slots), for persistence. */
  snapshot(): Float64Array {
    return this.ids.slice(0, this.used);
  }

  static fromSnapshot(ids: Float64Array): SlotDirectory {
    const dir = new SlotDirectory();
    dir.grow(ids.length);
    dir.used = ids.length;
    let live = 0;
    for (const id of ids) if (!Number.isNaN(id)) live++;
    dir.resize(live);
    for (let slot = ids.length - 1; slot >= 0; slot--) {
      const id = ids[slot]!;
      dir.ids[slot] = id;
      if (Number.isNaN(id)) {
        dir.free.push(slot);
        continue;
      }
      if (!Number.isSafeInteger(id)) throw new Error(`slot directory: slot ${slot} holds an invalid id`);
      if (dir.find(id) !== EMPTY) throw new Error(`slot directory: id ${id} is stored twice`);
      dir.index(slot);
    }
    return dir;
  }

  private grow(min: number): void {
    const next = new Float64Array(Math.max(min, this.ids.length * 2, 64));
    next.fill(NaN);
    next.set(this.ids);
    this.ids = next;
  }

  /** The table position holding the id's slot, or EMPTY. */
  private find(id: number): number {
    const mask = this.table.length - 1;
    for (let at = this.bucketOf(id); ; at = (at + 1) & mask) {
      const slot = this.table[at]!;
      if (slot === EMPTY) return EMPTY;
      if (this.ids[slot] === id) return at;
    }
  }

  /** Enters a slot whose id is set and not yet in the table. */
  private index(slot: number): void {
    if ((this.live + 1) * 2 > this.table.length) this.resize(this.live + 1);
    this.place(slot);
    this.live++;
  }

  private place(slot: number): void {
    const mask = this.table.length - 1;
    let at = this.bucketOf(this.ids[slot]!);
    while (this.table[at] !== EMPTY) at = (at + 1) & mask;
    this.table[at] = slot;
  }

  /** Empties a table position, moving later entries of its probe run back so every lookup still finds them. */
  private unindex(at: number): void {
    const mask = this.table.length - 1;
    let hole = at;
    for (let next = (at + 1) & mask; this.table[next] !== EMPTY; next = (next + 1) & mask) {
      const home = this.bucketOf(this.ids[this.table[next]!]!);
      // The entry may move into the hole when its home is not in the cyclic range (hole, next].
      const inRange = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (!inRange) {
        this.table[hole] = this.table[next]!;
        hole = next;
      }
    }
    this.table[hole] = EMPTY;
    this.live--;
  }

  /** A table for at least `entries` ids at most half full, with every live slot entered again. */
  private resize(entries: number): void {
    let size = MIN_TABLE;
    while (size < entries * 2) size *= 2;
    const old = this.table;
    this.table = new Int32Array(size).fill(EMPTY);
    for (const slot of old) if (slot !== EMPTY) this.place(slot);
  }

  /**
   * A table position for an id: its two 32-bit halves mixed, then the top log2(table size) bits of the product
   * (Fibonacci hashing): a shift by 32 − log2(size), which is clz32(size) + 1.
   */
  private bucketOf(id: number): number {
    const low = id >>> 0;
    const high = Math.floor(id / 0x1_0000_0000) >>> 0;
    return Math.imul(low ^ Math.imul(high, 0x85eb_ca6b), 0x9e37_79b1) >>> (Math.clz32(this.table.length) + 1);
  }
}
