/** A memory file's entries indexed by id over its bytes (docs/sync.md, "Format"), each parsed when asked for. */
import { HashSlots, hashBytes } from '../domain/hash-slots.js';
import { CRC_AT, decodeChecksummedLine, LINE_PREFIX } from '../system/checksummed-line.js';
import {
  damaged,
  entryLine,
  entryOfBody,
  populationKey,
  type EntryBody,
  type MemoryEntry,
  type PeekedEntry,
  type PopulationRecord,
} from './memory-lines.js';

/** An entry line's body starts so (`entryLine` writes the id first): its id is read without parsing the line. */
const ENTRY_START = Buffer.from(`${LINE_PREFIX}{"id":"`);
/** The shortest acknowledged entry line: frame, 1-byte id, digest (43), run id (24); a cleared one grows the index. */
const MIN_ENTRY_LINE = ENTRY_START.length + 1 + '","d":"'.length + 43 + '","r":"'.length + 24 + '"}}\n'.length;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const NEWLINE = 10;

/** What byId holds for an id a `forget` outdated: never given out. */
const FORGOTTEN: MemoryEntry = Object.freeze({ digest: '', run: '' });

/** A memory's entries by id, the last line winning, parsed on `get`: opening indexes ids' bytes, no parse per line. */
export class MemoryEntries {
  /** Id -> the offset of its latest line (domain/hash-slots.ts); a probe looks for `probeBytes[probeFrom..probeTo)`. */
  private readonly slots: HashSlots;
  private scratch = Buffer.alloc(256);
  private probeBytes: Uint8Array = this.scratch;
  private probeFrom = 0;
  private probeTo = 0;
  /** Entries parsed or set by this run: they win over their line. */
  private readonly byId = new Map<string, MemoryEntry>();
  /** Ids set by this run that no line holds. */
  private added = 0;
  /** Ids whose line a `forget` outdates (FORGOTTEN in byId): not counted, not given. */
  private gone = 0;
  /**
   * Scratch for layoutAt (one line at a time): the offsets of an entry line's fields, a raw digest's -1 when it has
   * none; and the run id read last.
   */
  private readonly layout = {
    digestAt: 0,
    digestEnd: 0,
    runAt: 0,
    runEnd: 0,
    rawAt: -1,
    rawEnd: -1,
    disabled: false,
  };
  private lastRun = '';

  constructor(
    private readonly bytes: Buffer = Buffer.alloc(0),
    private readonly file: string = '',
  ) {
    // Sized for the entry lines the file can hold at most half full: no growth while indexing examctl's lines.
    this.slots = new HashSlots(
      (start) => this.holds(start),
      (start) =>
        hashBytes(this.bytes, start + ENTRY_START.length, this.bytes.indexOf(QUOTE, start + ENTRY_START.length)),
      Math.max(512, bytes.length / MIN_ENTRY_LINE),
    );
  }

  get size(): number {
    return this.slots.size + this.added - this.gone;
  }

  /** Indexes the entry line at `start` .. `end` by its id's bytes; false: left to the full parse. */
  indexLine(start: number, end: number): boolean {
    const bytes = this.bytes;
    if (end - start < ENTRY_START.length + 2) return false;
    for (let k = 0; k < CRC_AT; k++) if (bytes[start + k] !== ENTRY_START[k]) return false;
    for (let k = CRC_AT + 8; k < ENTRY_START.length; k++) if (bytes[start + k] !== ENTRY_START[k]) return false;
    const from = start + ENTRY_START.length;
    const to = bytes.indexOf(QUOTE, from);
    if (to < 0 || to >= end) return false;
    for (let k = from; k < to; k++) if (bytes[k] === BACKSLASH) return false;
    const slot = this.find(bytes, from, to);
    const hadLine = this.slots.at(slot) >= 0;
    this.slots.set(slot, start);
    // A line after one read in full (a forget line, another layout) for the same id wins over it.
    if (this.byId.size > 0) this.outdate(bytes.toString('utf8', from, to), hadLine);
    return true;
  }

  /** The id's entry set before its newer line was indexed is dropped: the line is the id's latest. */
  private outdate(id: string, hadLine: boolean): void {
    const prior = this.byId.get(id);
    if (prior === undefined) return;
    this.byId.delete(id);
    if (prior === FORGOTTEN) this.gone -= 1;
    else if (!hadLine) this.added -= 1;
  }

  /** The id forgotten, as if never sent; whether it was remembered. */
  forget(id: string): boolean {
    const entry = this.byId.get(id);
    if (entry === FORGOTTEN) return false;
    if (this.lineStart(id) >= 0) {
      this.byId.set(id, FORGOTTEN);
      this.gone += 1;
      return true;
    }
    if (entry === undefined) return false;
    this.byId.delete(id);
    this.added -= 1;
    return true;
  }

  get(id: string): MemoryEntry | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined || this.slots.size === 0) return entry === FORGOTTEN ? undefined : entry;
    const start = this.slots.at(this.slotOf(id));
    return start < 0 ? undefined : this.parse(id, start);
  }

  /** What --changed-only compares, read off the line when it has `entryLine`'s layout, else parsed. */
  peek(id: string): PeekedEntry | undefined {
    if (this.byId.has(id) || this.slots.size === 0) return this.get(id);
    const start = this.slots.at(this.slotOf(id));
    if (start < 0) return undefined;
    const at = this.layoutAt(start, id);
    if (at === undefined) return this.parse(id, start);
    const bytes = this.bytes;
    const peeked: PeekedEntry = {
      digest: bytes.toString('latin1', at.digestAt, at.digestEnd),
      run: this.runAt(at.runAt, at.runEnd),
    };
    if (at.rawAt >= 0) peeked.raw = bytes.toString('latin1', at.rawAt, at.rawEnd);
    if (at.disabled) peeked.disabled = true;
    return peeked;
  }

  /**
   * Whether `id`'s entry has a raw digest (docs/sync.md, "The raw digest"): `none` (or disabled) the request digest
   * decides; `absent` (no entry, or its digest cleared) it is sent and gets one.
   */
  rawState(id: string): 'absent' | 'none' | 'raw' {
    const entry = this.peek(id);
    if (entry === undefined || entry.digest === '') return 'absent';
    return entry.raw !== undefined && entry.disabled !== true ? 'raw' : 'none';
  }

  /** The run whose acknowledged request has raw digest `raw` (not disabled), compared on the line's bytes. */
  rawMatch(id: string, raw: string): string | undefined {
    const start = this.byId.has(id) ? -1 : this.lineStart(id);
    const at = start < 0 ? undefined : this.layoutAt(start, id);
    if (at === undefined) {
      const entry = start < 0 ? this.byId.get(id) : this.parse(id, start);
      return entry?.raw === raw && entry.disabled !== true ? entry.run : undefined;
    }
    if (at.rawAt < 0 || at.disabled || at.rawEnd - at.rawAt !== raw.length) return undefined;
    const bytes = this.bytes;
    for (let k = 0; k < raw.length; k++) if (bytes[at.rawAt + k] !== raw.charCodeAt(k)) return undefined;
    return this.runAt(at.runAt, at.runEnd);
  }

  /** Where the entry line's fields are, when it has `entryLine`'s layout (else undefined: parse it). */
  private layoutAt(start: number, id: string) {
    const bytes = this.bytes;
    const end = bytes.indexOf(NEWLINE, start);
    const digestAt = start + ENTRY_START.length + Buffer.byteLength(id, 'utf8') + DIGEST_KEY.length;
    const digestEnd = bytes.indexOf(QUOTE, digestAt);
    const runAt = digestEnd + RUN_KEY.length;
    const runEnd = bytes.indexOf(QUOTE, runAt);
    if (
      !hasAt(bytes, digestAt - DIGEST_KEY.length, DIGEST_KEY) ||
      !hasAt(bytes, digestEnd, RUN_KEY) ||
      runEnd < 0 ||
      runEnd >= end ||
      hasEscape(bytes, digestAt, runEnd)
    )
      return undefined;
    const at = this.layout;
    at.digestAt = digestAt;
    at.digestEnd = digestEnd;
    at.runAt = runAt;
    at.runEnd = runEnd;
    at.rawAt = -1;
    at.rawEnd = -1;
    let rest = runEnd;
    // The raw digest, when the line has one, comes right after the run (entryLine).
    if (hasAt(bytes, runEnd, RAW_KEY)) {
      const rawAt = runEnd + RAW_KEY.length;
      const rawEnd = bytes.indexOf(QUOTE, rawAt);
      if (rawEnd < 0 || rawEnd >= end || hasEscape(bytes, rawAt, rawEnd)) return undefined;
      at.rawAt = rawAt;
      at.rawEnd = rawEnd;
      rest = rawEnd;
    }
    // A key cannot occur inside a string value (its quotes would be escaped): `,"x":true` is the flag.
    at.disabled = bytes.subarray(rest, end).includes(DISABLED_KEY);
    return at;
  }

  /** The run id at `from..to` of the bytes: the last one read again when it is the same. */
  private runAt(from: number, to: number): string {
    const last = this.lastRun;
    if (to - from === last.length) {
      let k = 0;
      while (k < last.length && this.bytes[from + k] === last.charCodeAt(k)) k++;
      if (k === last.length) return last;
    }
    this.lastRun = this.bytes.toString('latin1', from, to);
    return this.lastRun;
  }

  set(id: string, entry: MemoryEntry): void {
    const prior = this.byId.get(id);
    if (prior === FORGOTTEN) this.gone -= 1;
    else if (prior === undefined && this.lineStart(id) < 0) this.added += 1;
    this.byId.set(id, entry);
  }

  *[Symbol.iterator](): IterableIterator<[string, MemoryEntry]> {
    for (const start of this.lineStarts()) {
      const id = this.idOfLine(start);
      const entry = this.byId.get(id) ?? this.parse(id, start);
      if (entry !== FORGOTTEN) yield [id, entry];
    }
    for (const [id, entry] of this.byId) if (this.lineStart(id) < 0) yield [id, entry];
  }

  *values(): IterableIterator<MemoryEntry> {
    for (const [, entry] of this) yield entry;
  }

  /** Per population, its ids and newest run, read off the lines; `exceptRun`: only ids another run wrote. */
  populationsOfEntries(exceptRun?: string): Map<string, PopulationRecord> {
    const found = new Map<string, PopulationRecord>();
    const add = (population: string | undefined, run: string): void => {
      if (run === exceptRun) return;
      const key = populationKey(population);
      const known = found.get(key);
      if (known === undefined) found.set(key, { run, count: 1 });
      else {
        known.count += 1;
        if (run > known.run) known.run = run;
      }
    };
    for (const start of this.lineStarts()) {
      const id = this.idOfLine(start);
      const set = this.byId.get(id);
      if (set !== undefined) {
        if (set !== FORGOTTEN) add(set.population, set.run);
        continue;
      }
      const at = this.layoutAt(start, id);
      const population =
        at === undefined ? undefined : populationAtEnd(this.bytes, start, this.bytes.indexOf(NEWLINE, start));
      if (at === undefined || population === false) {
        const parsed = this.parse(id, start);
        add(parsed.population, parsed.run);
      } else add(population, this.runAt(at.runAt, at.runEnd));
    }
    for (const [id, entry] of this.byId) if (this.lineStart(id) < 0) add(entry.population, entry.run);
    return found;
  }

  /** Each id's latest line, as written (a line not parsed is copied as read). */
  *lines(): IterableIterator<string> {
    for (const start of this.lineStarts()) {
      const id = this.idOfLine(start);
      const entry = this.byId.get(id);
      if (entry === FORGOTTEN) continue;
      yield entry !== undefined
        ? entryLine(id, entry)
        : this.bytes.toString('utf8', start, this.bytes.indexOf(NEWLINE, start) + 1);
    }
    for (const [id, entry] of this.byId) if (this.lineStart(id) < 0) yield entryLine(id, entry);
  }

  /** The offset of the id's latest line, -1 for none. */
  private lineStart(id: string): number {
    return this.slots.size === 0 ? -1 : this.slots.at(this.slotOf(id));
  }

  /** The slot of an id, by its UTF-8 bytes written into one scratch buffer (no Buffer made per lookup). */
  private slotOf(id: string): number {
    if (this.scratch.length < 3 * id.length) this.scratch = Buffer.alloc(3 * id.length);
    return this.find(this.scratch, 0, this.scratch.write(id, 0, 'utf8'));
  }

  /** Starts of the indexed lines, in file order. */
  private lineStarts(): number[] {
    return [...this.slots.values()].sort((a, b) => a - b);
  }

  private idOfLine(start: number): string {
    const from = start + ENTRY_START.length;
    return this.bytes.toString('utf8', from, this.bytes.indexOf(QUOTE, from));
  }

  /** The slot of the id whose bytes are `key[from..to)`: its own, or the free one it would take. */
  private find(key: Uint8Array, from: number, to: number): number {
    this.probeBytes = key;
    this.probeFrom = from;
    this.probeTo = to;
    return this.slots.slotOf(hashBytes(key, from, to));
  }

  /** Whether the line at `start` is of the id a probe looks for. */
  private holds(start: number): boolean {
    const bytes = this.bytes;
    const at = start + ENTRY_START.length;
    const length = this.probeTo - this.probeFrom;
    if (bytes[at + length] !== QUOTE) return false;
    const key = this.probeBytes;
    for (let k = 0; k < length; k++) if (bytes[at + k] !== key[this.probeFrom + k]) return false;
    return true;
  }

  private parse(id: string, start: number): MemoryEntry {
    const end = this.bytes.indexOf(NEWLINE, start);
    const decoded = decodeChecksummedLine(this.bytes.subarray(start, end));
    const read = decoded.ok ? entryOfBody(decoded.body as Partial<EntryBody>) : decoded.reason;
    if (typeof read === 'string' || read.id !== id)
      throw damaged(this.file, lineNumberAt(this.bytes, start), typeof read === 'string' ? read : 'not a memory entry');
    this.byId.set(id, read.entry);
    return read.entry;
  }
}

const DIGEST_KEY = Buffer.from('","d":"');
const POPULATION_KEY = Buffer.from('"p":');
const POPULATION_LAST = Buffer.from(',"p":"');

/** The population of an entry line (its last field): the name, undefined for none, false: elsewhere (parse it). */
function populationAtEnd(bytes: Buffer, start: number, end: number): string | undefined | false {
  const tail = end - 3;
  if (bytes[tail] === QUOTE) {
    let open = tail - 1;
    while (open > start && bytes[open] !== QUOTE) open -= 1;
    if (hasAt(bytes, open - POPULATION_LAST.length + 1, POPULATION_LAST))
      return bytes.toString('latin1', open + 1, tail);
  }
  return bytes.subarray(start, end).includes(POPULATION_KEY) ? false : undefined;
}
const RUN_KEY = Buffer.from('","r":"');
const RAW_KEY = Buffer.from('","w":"');
const DISABLED_KEY = Buffer.from(',"x":true');

function hasAt(bytes: Buffer, at: number, word: Buffer): boolean {
  if (at < 0) return false;
  for (let k = 0; k < word.length; k++) if (bytes[at + k] !== word[k]) return false;
  return true;
}

function hasEscape(bytes: Buffer, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (bytes[k] === BACKSLASH || bytes[k]! >= 0x80) return true;
  return false;
}

/** The 1-based number of the line starting at `offset` (for a message: counts newlines once). */
function lineNumberAt(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let at = bytes.indexOf(NEWLINE); at >= 0 && at < offset; at = bytes.indexOf(NEWLINE, at + 1)) line += 1;
  return line;
}
