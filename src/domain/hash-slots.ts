/**
 * The one hash table written here, pure (docs/architecture.md, "Written here, and why"): `holds`
 * reads the key its owner set before asking, `hashOf` gives a value's hash for growing.
 */
export class HashSlots {
  private slots: Int32Array;
  private used = 0;

  constructor(
    private readonly holds: (value: number) => boolean,
    private readonly hashOf: (value: number) => number,
    expected = 0,
  ) {
    let size = 16;
    while (size < expected * 2) size *= 2;
    this.slots = new Int32Array(size);
  }

  /** Values held. */
  get size(): number {
    return this.used;
  }

  /** The slot whose value holds the key hashed to `hash`, or the free slot where it goes. */
  slotOf(hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const taken = slots[slot] as number;
      if (taken === 0 || this.holds(taken - 1)) return slot;
    }
  }

  /** The value in `slot`, or -1 when it is free. */
  at(slot: number): number {
    return (this.slots[slot] as number) - 1;
  }

  /** Puts `value` in `slot` (just found by `slotOf`): a free slot is taken, a taken one's value replaced. */
  set(slot: number, value: number): void {
    const free = this.slots[slot] === 0;
    this.slots[slot] = value + 1;
    if (free && 2 * ++this.used > this.slots.length) this.grow();
  }

  /** Every value held, in no particular order. */
  *values(): Generator<number> {
    for (const taken of this.slots) if (taken !== 0) yield taken - 1;
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = slots.length - 1;
    for (const taken of old) {
      if (taken === 0) continue;
      let slot = this.hashOf(taken - 1) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = taken;
    }
    this.slots = slots;
  }
}

/** FNV-1a over a text's UTF-16 code units or a key's bytes (ASCII hashes alike both ways). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

export function hashString(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}

export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = FNV_OFFSET;
  for (let i = from; i < to; i += 1) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}
