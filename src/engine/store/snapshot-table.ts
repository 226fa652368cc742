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

/**
 * Strings of one buffer, as byte ranges (decoded where not plain ASCII), found by a hash table built once all are
 * added: a collection's keys and its hints (docs/store.md, "Loading").
 */
export class BufferStrings {
  private readonly start = new U32List();
  private readonly end = new U32List();
  private readonly hash = new U32List();
  /** Strings that are not plain ASCII without escapes, decoded. */
  private readonly text = new Map<number, string>();
  /** String -> entry. A probe looks for `probeText`, or (while sealing) for entry `probeEntry`'s string. */
  private slots: HashSlots | undefined;
  private probeText: string | undefined;
  private probeEntry = 0;

  constructor(private readonly buffer: Buffer) {}

  get count(): number {
    return this.hash.length;
  }

  /** The ASCII string at start..end, whose FNV-1a hash the caller computed. */
  add(start: number, end: number, hash: number): void {
    this.start.push(start);
    this.end.push(end);
    this.hash.push(hash);
  }

  addText(text: string): void {
    this.text.set(this.count, text);
    this.add(0, 0, hashString(text));
  }

  /** The UTF-8 string at start..end, hashed here. */
  addBytes(start: number, end: number): void {
    const buffer = this.buffer;
    let hash = FNV_OFFSET;
    for (let i = start; i < end; i += 1) {
      const byte = buffer[i]!;
      if (byte >= 0x80) return this.addText(buffer.toString('utf8', start, end));
      hash = Math.imul(hash ^ byte, FNV_PRIME);
    }
    this.add(start, end, hash >>> 0);
  }

  textOf(entry: number): string {
    return this.text.get(entry) ?? this.buffer.toString('latin1', this.start.data[entry]!, this.end.data[entry]!);
  }

  /** Builds the table; a string added again replaces the earlier entry, after `repeated` is told. */
  seal(repeated?: (entry: number, earlier: number) => void): void {
    const hashes = this.hash.data;
    const slots = new HashSlots(
      (taken) =>
        this.probeText !== undefined
          ? this.holds(taken, this.probeText)
          : hashes[taken] === hashes[this.probeEntry] && this.textOf(taken) === this.textOf(this.probeEntry),
      (taken) => hashes[taken]!,
      this.count,
    );
    for (let entry = 0; entry < this.count; entry += 1) {
      this.probeEntry = entry;
      const slot = slots.slotOf(hashes[entry]!);
      const taken = slots.at(slot);
      if (taken >= 0) repeated?.(entry, taken);
      slots.set(slot, entry);
    }
    this.slots = slots;
  }

  /** The entry of `text`, or -1. */
  find(text: string): number {
    const slots = this.slots as HashSlots;
    this.probeText = text;
    return slots.at(slots.slotOf(hashString(text)));
  }

  private holds(entry: number, text: string): boolean {
    const known = this.text.get(entry);
    if (known !== undefined) return known === text;
    const start = this.start.data[entry]!;
    if (this.end.data[entry]! - start !== text.length) return false;
    for (let i = 0; i < text.length; i += 1) if (this.buffer[start + i] !== text.charCodeAt(i)) return false;
    return true;
  }
}

/** What the snapshot reader collects for one collection, entity by entity, in file order. */
export class CollectionTableBuilder {
  readonly lineStart = new U32List();
  readonly keys: BufferStrings;
  readonly valueStart = new U32List();
  readonly valueEnd = new U32List();
  /** Bytes of the hint strings (`"a","b"`, between the brackets), or NO_HINTS in hintsFrom. */
  readonly hintsFrom = new U32List();
  readonly hintsTo = new U32List();
  readonly lineNo = new U32List();

  constructor(
    readonly name: string,
    buffer: Buffer,
  ) {
    this.keys = new BufferStrings(buffer);
  }

  get count(): number {
    return this.keys.count;
  }
}

/** One collection of a loaded snapshot, read-only (EntityMap layers changes over it); ordinals in file order. */
export class CollectionTable {
  readonly count: number;
  private readonly lineStart: Uint32Array;
  private readonly keys: BufferStrings;
  private readonly valueStart: Uint32Array;
  private readonly valueEnd: Uint32Array;
  private readonly hintsFrom: Uint32Array;
  private readonly hintsTo: Uint32Array;
  /** Hint -> the strings' entry, and each entry's ordinal: built when first asked. */
  private hintIndex: { hints: BufferStrings; owner: U32List } | undefined;

  constructor(
    private readonly buffer: Buffer,
    private readonly file: string,
    built: CollectionTableBuilder,
  ) {
    this.count = built.count;
    this.lineStart = built.lineStart.data;
    this.keys = built.keys;
    this.valueStart = built.valueStart.data;
    this.valueEnd = built.valueEnd.data;
    this.hintsFrom = built.hintsFrom.data;
    this.hintsTo = built.hintsTo.data;
    // A writer never puts one key in a collection twice: such a file was not written by examctl.
    this.keys.seal((ordinal, taken) => {
      throw new StoreDamagedError(
        `${file}:${built.lineNo.data[ordinal]!}: key ${JSON.stringify(this.keyOf(ordinal))} of ${built.name} appears twice (also line ${built.lineNo.data[taken]!})`,
      );
    });
  }

  /** The ordinal of `key`, or -1. */
  find(key: string): number {
    return this.keys.find(key);
  }

  keyOf(ordinal: number): string {
    return this.keys.textOf(ordinal);
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
    const { hints, owner } = (this.hintIndex ??= this.buildHintIndex());
    const entry = hints.find(hint);
    return entry < 0 ? -1 : owner.data[entry]!;
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

  /** The last entity (in file order) to name a hint owns it, as a Map's set would. */
  private buildHintIndex(): { hints: BufferStrings; owner: U32List } {
    const hints = new BufferStrings(this.buffer);
    const owner = new U32List();
    for (let ordinal = 0; ordinal < this.count; ordinal += 1) {
      const from = this.hintsFrom[ordinal]!;
      if (from === NO_HINTS) continue;
      const to = this.hintsTo[ordinal]!;
      const added = hints.count;
      if (!this.scanHints(from, to, (start, end) => hints.addBytes(start, end))) {
        for (const hint of this.parseHints(ordinal, from, to)) hints.addText(hint);
      }
      for (let entry = added; entry < hints.count; entry += 1) owner.push(ordinal);
    }
    hints.seal();
    return { hints, owner };
  }
}
