import { StoreDamagedError } from '../../errors.js';

/**
 * An entity as the snapshot holds it: its value's JSON bytes, not parsed yet, and the index hints
 * persisted beside it. Parsing every entity at start-up was most of the load time (and of the
 * GC after it); most commands read a handful of entities, so the parse waits for the first read.
 * The bytes stay where the loader read them (a range of its read buffer, off the JS heap, the
 * Buffer object shared by all the entities read from it), so the collector neither scans nor
 * copies them; a read buffer lives while any entity in it is raw.
 */
export class RawEntity {
  /**
   * `hints` as given, or (hintsFrom >= 0) left in the buffer: bytes hintsFrom..hintsTo hold the
   * hint strings as `"a","b"` with no escape sequence (checked by the loader), decoded only when
   * asked for. Fewer objects per entity at load is less for the collector to copy.
   */
  constructor(
    private readonly buffer: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly givenHints: readonly string[] | undefined,
    private readonly hintsFrom = -1,
    private readonly hintsTo = -1,
  ) {}

  get hints(): readonly string[] | undefined {
    if (this.hintsFrom < 0) return this.givenHints;
    const hints: string[] = [];
    let at = this.hintsFrom;
    while (at < this.hintsTo) {
      const end = this.buffer.indexOf(0x22, at + 1);
      hints.push(this.buffer.toString('utf8', at + 1, end));
      at = end + 2; // past the closing quote and the comma
    }
    return hints;
  }

  /** Calls `visit(key, hint)` per hint, without building the array. */
  visitHints(key: string, visit: (key: string, hint: string) => void): void {
    if (this.hintsFrom < 0) {
      if (this.givenHints) for (const hint of this.givenHints) visit(key, hint);
      return;
    }
    let at = this.hintsFrom;
    while (at < this.hintsTo) {
      const end = this.buffer.indexOf(0x22, at + 1);
      visit(key, this.buffer.toString('utf8', at + 1, end));
      at = end + 2;
    }
  }

  get text(): string {
    return this.buffer.toString('utf8', this.start, this.end);
  }
}

/**
 * One collection's entities. A Map whose values may be RawEntity placeholders: every read path
 * (get, iteration, forEach) parses a placeholder on first read and caches the parsed value in
 * its place, so readers only ever see parsed values. The entries that stayed raw are reachable
 * through `rawEntries()` (for hints and for compaction, which copies their text as is).
 */
export class EntityMap extends Map<string, unknown> {
  /** Where the raw texts came from, for the message if one does not parse. */
  source = '';

  setRaw(key: string, raw: RawEntity): void {
    super.set(key, raw);
  }

  /** The stored entry, raw or parsed, without parsing. */
  peek(key: string): unknown {
    return super.get(key);
  }

  override get(key: string): unknown {
    const stored = super.get(key);
    return stored instanceof RawEntity ? this.parse(key, stored) : stored;
  }

  /** Each entry as stored (RawEntity for those never read), without an entry array per item. */
  forEachStored(callback: (stored: unknown, key: string) => void): void {
    super.forEach(callback);
  }

  /** Entries as stored: RawEntity for those never read. */
  rawEntries(): IterableIterator<[string, unknown]> {
    return super.entries();
  }

  override *entries(): MapIterator<[string, unknown]> {
    for (const [key, stored] of super.entries()) yield [key, stored instanceof RawEntity ? this.parse(key, stored) : stored];
  }

  override *values(): MapIterator<unknown> {
    for (const [key, stored] of super.entries()) yield stored instanceof RawEntity ? this.parse(key, stored) : stored;
  }

  override [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries();
  }

  override forEach(callback: (value: unknown, key: string, map: Map<string, unknown>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  private parse(key: string, raw: RawEntity): unknown {
    let value: unknown;
    try {
      value = JSON.parse(raw.text);
    } catch {
      // The line's checksum matched, so the bytes are as written: only a writer bug gets here.
      throw new StoreDamagedError(`${this.source}: the value of ${JSON.stringify(key)} is not valid JSON`);
    }
    // Replacing an existing key keeps its place in the iteration order.
    super.set(key, value);
    return value;
  }
}
