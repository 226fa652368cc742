import { StoreDamagedError } from '../../system/errors.js';
import { FNV_OFFSET, FNV_PRIME, HashSlots, hashString } from '../../domain/hash-slots.js';

/*
 * The loaded snapshot of one collection as flat typed arrays over its bytes, with hash tables
 * (domain/hash-slots.ts) from key, and from hint when first asked, to the entity's ordinal: no
 * object per entity, and no string until it is looked at (docs/store.md, "Loading").
 */

/** "No hints member" in hintsFrom. */
export const NO_HINTS = 0xffffffff;
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** A growable Uint32Array: offsets into a snapshot (which, as one Buffer, is at most 4 GiB). */
class U32List {
  data = new Uint32Array(16);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length] = value;
    this.length += 1;
  }
}

/** What the snapshot reader collects for one collection, entity by entity, in file order. */
export class CollectionTableBuilder {
  readonly lineStart = new U32List();
  readonly keyStart = new U32List();
  readonly keyEnd = new U32List();
  readonly keyHash = new U32List();
  readonly valueStart = new U32List();
  readonly valueEnd = new U32List();
  /** Bytes of the hint strings (`"a","b"`, between the brackets), or NO_HINTS in hintsFrom. */
  readonly hintsFrom = new U32List();
  readonly hintsTo = new U32List();
  readonly lineNo = new U32List();
  /** Keys that are not plain ASCII without escapes, decoded. */
  readonly keyText = new Map<number, string>();

  constructor(readonly name: string) {}

  get count(): number {
    return this.keyStart.length;
  }
}

/** One collection of a loaded snapshot, read-only (EntityMap layers changes over it); ordinals in file order. */
export class CollectionTable {
  readonly count: number;
  private readonly lineStart: Uint32Array;
  private readonly keyStart: Uint32Array;
  private readonly keyEnd: Uint32Array;
  private readonly valueStart: Uint32Array;
  private readonly valueEnd: Uint32Array;
  private readonly hintsFrom: Uint32Array;
  private readonly hintsTo: Uint32Array;
  private readonly keyText: Map<number, string>;
  /** Key -> ordinal. A probe looks for `probeKey`, or (while the table is built) for the key of `probeOrdinal`. */
  private readonly keySlots: HashSlots;
  private probeKey: string | undefined;
  private probeOrdinal = 0;
  private hintIndex: HintIndex | undefined;

  constructor(
    private readonly buffer: Buffer,
    private readonly file: string,
    built: CollectionTableBuilder,
  ) {
    this.count = built.count;
    this.lineStart = built.lineStart.data;
    this.keyStart = built.keyStart.data;
    this.keyEnd = built.keyEnd.data;
    this.valueStart = built.valueStart.data;
    this.valueEnd = built.valueEnd.data;
    this.hintsFrom = built.hintsFrom.data;
    this.hintsTo = built.hintsTo.data;
    this.keyText = built.keyText;
    const hashes = built.keyHash.data;
    this.keySlots = new HashSlots(
      (taken) =>
        this.probeKey !== undefined
          ? this.keyEquals(taken, this.probeKey)
          : hashes[taken] === hashes[this.probeOrdinal] && this.keyOf(taken) === this.keyOf(this.probeOrdinal),
      (taken) => hashes[taken]!,
      this.count,
    );
    for (let ordinal = 0; ordinal < this.count; ordinal += 1) {
      this.probeOrdinal = ordinal;
      const slot = this.keySlots.slotOf(hashes[ordinal]!);
      const taken = this.keySlots.at(slot);
      if (taken >= 0) {
        // A writer never puts one key in a collection twice: such a file was not written by examctl.
        throw new StoreDamagedError(
          `${file}:${built.lineNo.data[ordinal]!}: key ${JSON.stringify(this.keyOf(ordinal))} of ${built.name} appears twice (also line ${built.lineNo.data[taken]!})`,
        );
      }
      this.keySlots.set(slot, ordinal);
    }
  }

  /** The ordinal of `key`, or -1. */
  find(key: string): number {
    this.probeKey = key;
    return this.keySlots.at(this.keySlots.slotOf(hashString(key)));
  }

  keyOf(ordinal: number): string {
    return this.keyText.get(ordinal) ?? this.buffer.toString('latin1', this.keyStart[ordinal]!, this.keyEnd[ordinal]!);
  }

  private keyEquals(ordinal: number, key: string): boolean {
    const text = this.keyText.get(ordinal);
    if (text !== undefined) return text === key;
    return bytesEqual(this.buffer, this.keyStart[ordinal]!, this.keyEnd[ordinal]!, key);
  }

  /**
   * The lines of entities from..to-1, newlines included, as written: one view of the snapshot's
   * bytes. Only for a run whose lines are adjacent in the file (see `adjacent`).
   */
  linesBytes(from: number, to: number): Buffer {
    return this.buffer.subarray(this.lineStart[from]!, this.valueEnd[to - 1]! + 2);
  }

  /** Whether entity `ordinal + 1`'s line follows entity `ordinal`'s directly in the file. */
  adjacent(ordinal: number): boolean {
    return this.lineStart[ordinal + 1] === this.valueEnd[ordinal]! + 2;
  }

  /** The value's JSON text, as written. */
  valueText(ordinal: number): string {
    return this.buffer.toString('utf8', this.valueStart[ordinal]!, this.valueEnd[ordinal]!);
  }

  /** The hints persisted beside the entity (undefined: none were). */
  hintsOf(ordinal: number): readonly string[] | undefined {
    const from = this.hintsFrom[ordinal]!;
    if (from === NO_HINTS) return undefined;
    const to = this.hintsTo[ordinal]!;
    const hints: string[] = [];
    if (!this.scanHints(from, to, (start, end) => hints.push(this.buffer.toString('utf8', start, end)))) {
      return this.parseHints(ordinal, from, to);
    }
    return hints;
  }

  /** The ordinal of the last entity (in file order) whose persisted hints include `hint`, or -1. */
  hintOwner(hint: string): number {
    this.hintIndex ??= this.buildHintIndex();
    return this.hintIndex.find(hint);
  }

  /**
   * Calls `found(start, end)` per hint string of `"a","b"` in from..to. False (having called it
   * for none) if the range holds an escape sequence or is not that shape: the caller then parses.
   */
  private scanHints(from: number, to: number, found: (start: number, end: number) => void): boolean {
    const buffer = this.buffer;
    // Two passes, so that `found` is called for all or none. (Buffer.indexOf has no end bound:
    // searching for a backslash that is not there would read to the end of the file.)
    let at = from;
    while (at < to) {
      if (buffer[at] !== QUOTE) return false;
      at += 1;
      for (;;) {
        if (at >= to) return false;
        const byte = buffer[at];
        if (byte === QUOTE) break;
        if (byte === BACKSLASH) return false;
        at += 1;
      }
      at += 1;
      if (at < to) {
        if (buffer[at] !== COMMA) return false;
        at += 1;
      }
    }
    at = from;
    while (at < to) {
      const end = buffer.indexOf(QUOTE, at + 1);
      found(at + 1, end);
      at = end + 2;
    }
    return true;
  }

  private parseHints(ordinal: number, from: number, to: number): string[] {
    let hints: unknown;
    try {
      hints = JSON.parse(`[${this.buffer.toString('utf8', from, to)}]`);
    } catch {
      hints = undefined;
    }
    if (!Array.isArray(hints) || !hints.every((hint) => typeof hint === 'string')) {
      // The line's checksum matched, so the bytes are as written: only a writer bug gets here.
      throw new StoreDamagedError(
        `${this.file}: the hints of ${JSON.stringify(this.keyOf(ordinal))} are not a list of strings`,
      );
    }
    return hints as string[];
  }

  private buildHintIndex(): HintIndex {
    const index = new HintIndex(this.buffer);
    for (let ordinal = 0; ordinal < this.count; ordinal += 1) {
      const from = this.hintsFrom[ordinal]!;
      if (from === NO_HINTS) continue;
      const to = this.hintsTo[ordinal]!;
      if (!this.scanHints(from, to, (start, end) => index.addBytes(ordinal, start, end))) {
        for (const hint of this.parseHints(ordinal, from, to)) index.addText(ordinal, hint);
      }
    }
    index.seal();
    return index;
  }
}

/** Hint string -> ordinal, over the snapshot's bytes; the last entity to name a hint owns it (as a Map's set would). */
class HintIndex {
  private readonly owner = new U32List();
  private readonly start = new U32List();
  private readonly end = new U32List();
  private readonly hash = new U32List();
  /** Hints that are not plain ASCII, decoded. */
  private readonly text = new Map<number, string>();
  /** Hint -> entry. A probe looks for `probeHint`, or (while sealing) for entry `probeEntry`'s hint. */
  private slots: HashSlots | undefined;
  private probeHint: string | undefined;
  private probeEntry = 0;

  constructor(private readonly buffer: Buffer) {}

  addBytes(ordinal: number, start: number, end: number): void {
    const buffer = this.buffer;
    let hash = FNV_OFFSET;
    for (let i = start; i < end; i += 1) {
      const byte = buffer[i]!;
      if (byte >= 0x80) {
        this.addText(ordinal, buffer.toString('utf8', start, end));
        return;
      }
      hash = Math.imul(hash ^ byte, FNV_PRIME);
    }
    this.push(ordinal, start, end, hash >>> 0);
  }

  addText(ordinal: number, hint: string): void {
    this.text.set(this.owner.length, hint);
    this.push(ordinal, 0, 0, hashString(hint));
  }

  private push(ordinal: number, start: number, end: number, hash: number): void {
    this.owner.push(ordinal);
    this.start.push(start);
    this.end.push(end);
    this.hash.push(hash);
  }

  seal(): void {
    const hashes = this.hash.data;
    const slots = new HashSlots(
      (taken) =>
        this.probeHint !== undefined
          ? this.holds(taken, this.probeHint)
          : hashes[taken] === hashes[this.probeEntry] && this.textOf(taken) === this.textOf(this.probeEntry),
      (taken) => hashes[taken]!,
      this.owner.length,
    );
    for (let entry = 0; entry < this.owner.length; entry += 1) {
      this.probeEntry = entry;
      slots.set(slots.slotOf(hashes[entry]!), entry);
    }
    this.slots = slots;
  }

  find(hint: string): number {
    const slots = this.slots as HashSlots;
    this.probeHint = hint;
    const entry = slots.at(slots.slotOf(hashString(hint)));
    return entry < 0 ? -1 : this.owner.data[entry]!;
  }

  private holds(entry: number, hint: string): boolean {
    const text = this.text.get(entry);
    return text !== undefined
      ? text === hint
      : bytesEqual(this.buffer, this.start.data[entry]!, this.end.data[entry]!, hint);
  }

  private textOf(entry: number): string {
    return this.text.get(entry) ?? this.buffer.toString('latin1', this.start.data[entry]!, this.end.data[entry]!);
  }
}

/** Whether ASCII bytes start..end spell `text`. */
function bytesEqual(buffer: Buffer, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let i = 0; i < text.length; i += 1) if (buffer[start + i] !== text.charCodeAt(i)) return false;
  return true;
}
