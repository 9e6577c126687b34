/**
 * Record id ↔ slot. A slot is the store's dense item number: the label in the HNSW graph and the row in the
 * vector and tag arrays. Ids are arbitrary safe integers (PostgreSQL bigserial); slots stay small and dense,
 * and a freed slot is handed to the next new id, so storage does not grow with churn.
 */
export class SlotDirectory {
  private readonly slotOf = new Map<number, number>();
  private ids = new Float64Array(0);
  private readonly free: number[] = [];
  private used = 0;

  /** Live items. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Slots ever handed out (live + free); every slot is below this. */
  get slotCount(): number {
    return this.used;
  }

  get freeCount(): number {
    return this.free.length;
  }

  slot(id: number): number | undefined {
    return this.slotOf.get(id);
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
    const existing = this.slotOf.get(id);
    if (existing !== undefined) return { slot: existing, isNew: false, reused: false };
    const reused = this.free.length > 0;
    const slot = reused ? this.free.pop()! : this.used++;
    if (slot >= this.ids.length) this.grow(slot + 1);
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    return { slot, isNew: true, reused };
  }

  /** Frees the slot of an id; returns it, or undefined when the id is unknown. */
  release(id: number): number | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    this.slotOf.delete(id);
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
    for (let slot = ids.length - 1; slot >= 0; slot--) {
      const id = ids[slot]!;
      dir.ids[slot] = id;
      if (Number.isNaN(id)) {
        dir.free.push(slot);
        continue;
      }
      if (!Number.isSafeInteger(id)) throw new Error(`slot directory: slot ${slot} holds an invalid id`);
      if (dir.slotOf.has(id)) throw new Error(`slot directory: id ${id} is stored twice`);
      dir.slotOf.set(id, slot);
    }
    return dir;
  }

  private grow(min: number): void {
    const next = new Float64Array(Math.max(min, this.ids.length * 2, 64));
    next.fill(NaN);
    next.set(this.ids);
    this.ids = next;
  }
}
