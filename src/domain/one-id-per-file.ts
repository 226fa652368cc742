/**
 * docs/interpretations.md, "One file, one id": an id appears once in one input (code 9009, examctl's: no API
 * code says it). record-job.ts, OneIdPerFile, runs it on every command's input. Pure.
 */
import { ErrorCode } from './codes.js';
import type { Problem, Validation } from './problem.js';
import { FNV_OFFSET, FNV_PRIME, HashSlots } from './hash-slots.js';

/** Where a record was read (structurally the input's SourceRef). */
interface IdPlace {
  file: string;
  line: number;
}

export interface IdRule {
  /** The field the problem is on and the message names (`ExternalId`). */
  field: string;
  /** Compare ignoring case: user ids, which the service also treats as one when only the case differs (233). */
  ignoreCase: boolean;
  /** The problem's field when the id is nested (`Schedule.ScheduleExtId`); else `field`. */
  path?: string;
}

/** User ids (ExternalId, invigilator ids, CandidateExtId) collide ignoring case; collection ids do not. */
export const USER_ID_RULE: IdRule = { field: 'ExternalId', ignoreCase: true };
export const COLLECTION_ID_RULE: IdRule = { field: 'ExternalId', ignoreCase: false };
export const INVIGILATOR_ID_RULE: IdRule = { field: 'UserExtId', ignoreCase: true };
/** Whole schedule requests' ids, compared as given (sittings rows of one id are one schedule). */
export const SCHEDULE_ID_RULE: IdRule = { field: 'ScheduleExtId', ignoreCase: false, path: 'Schedule.ScheduleExtId' };
/** A candidate within one schedule's rows (one candidate may sit several schedules). */
export const CANDIDATE_ID_RULE: IdRule = { field: 'CandidateExtId', ignoreCase: true };

/**
 * The ids one read of one input has met so far: make one per read (a real run reads its file twice).
 * Held off the heap, no object a row for the GC to trace: docs/domain-rules.md, "One file, one id".
 */
export class IdsOfOneInput {
  /** The compact ids' bytes, back to back; entry `e` is `bytes[starts[e]..starts[e + 1])`. */
  private bytes = new Uint8Array(1 << 14);
  private starts = new Uint32Array(1 << 10);
  private places = new Float64Array(1 << 10);
  /** Each entry's hash, so a probe past another id reads no bytes. */
  private hashes = new Int32Array(1 << 10);
  /** The id a probe looks for, its hash, and whether case is folded. */
  private probeId = '';
  private probeHash = 0;
  private probeFold = false;
  private readonly slots = new HashSlots(
    (entry) => this.hashes[entry] === this.probeHash && this.equals(entry, this.probeId, this.probeFold),
    (entry) => this.hashes[entry] as number,
    1 << 11,
  );
  private count = 0;
  /**
   * An ASCII key first met as a non-ASCII spelling that folds to it (`\u212A1`, Kelvin, folds to `k1`): entry -> that
   * spelling.
   */
  private readonly oddSpellings = new Map<number, string>();
  /** Ids kept as strings: key -> packed place, and the first spelling where it differs from its key. */
  private readonly first = new Map<string, number>();
  private readonly spelled = new Map<string, string>();
  private readonly files: string[] = [];

  constructor(private readonly rule: IdRule) {}

  /** The problem of a record whose id an earlier one has; undefined (the id remembered) when it is the first. */
  repeated(id: string | null, place: IdPlace): Problem | undefined {
    if (id === null) return undefined;
    const packed = place.line + this.fileIndex(place.file) * LINE_SPAN;
    const fold = this.rule.ignoreCase;
    let earlierId: string;
    const key = fold ? id.toLowerCase() : id;
    let earlier = this.first.get(key);
    const compact = earlier === undefined && this.first.size >= MAP_IDS;
    const idHash = compact && id.length <= MAX_COMPACT_LENGTH ? asciiHash(id, fold) : -1;
    // Else a non-ASCII spelling of an ASCII key: it meets that key's other spellings in the table.
    const odd = idHash < 0;
    const hash = odd && compact && key.length <= MAX_COMPACT_LENGTH ? asciiHash(key, fold) : idHash;
    if (hash >= 0) {
      const entry = this.find(odd ? key : id, hash, fold);
      if (entry < 0) {
        const added = this.add(odd ? key : id, hash, packed, ~entry);
        if (odd) this.oddSpellings.set(added, id);
        return undefined;
      }
      earlier = this.places[entry] as number;
      earlierId = this.oddSpellings.get(entry) ?? this.spellingOf(entry);
    } else if (earlier === undefined) {
      this.first.set(key, packed);
      if (key !== id) this.spelled.set(key, id);
      return undefined;
    } else {
      earlierId = this.spelled.get(key) ?? key;
    }
    const file = this.files[Math.floor(earlier / LINE_SPAN)]!;
    const line = earlier % LINE_SPAN;
    if (!this.repeats.has(earlier)) this.repeats.set(earlier, { id, where: placeText(place, file) });
    const spelled = earlierId === id ? '' : ` (as ${earlierId})`;
    return this.problem(id, `${placeText({ file, line }, place.file)}${spelled}`);
  }

  /** The earlier's packed place -> the later's id and place (few: only repeats). */
  private readonly repeats = new Map<number, { id: string; where: string }>();

  /** After a read of the whole input: the problem of a record a later one repeats, naming that one. */
  repeatedLater(place: IdPlace, id: string | null): Problem | undefined {
    const at = this.files.indexOf(place.file);
    const later = at < 0 ? undefined : this.repeats.get(place.line + at * LINE_SPAN);
    return later === undefined ? undefined : this.problem(id ?? later.id, later.where);
  }

  get hasRepeats(): boolean {
    return this.repeats.size > 0;
  }

  private problem(id: string, where: string): Problem {
    const { field, path = field } = this.rule;
    return {
      field: path,
      code: ErrorCode.IdRepeatedInFile,
      message: `${field} ${id} is also on ${where}; an id appears once in one file`,
    };
  }

  /** The entry whose id equals `id` (ASCII case folded when `fold`), or `~slot` of the free slot where it goes. */
  private find(id: string, hash: number, fold: boolean): number {
    this.probeId = id;
    this.probeHash = hash;
    this.probeFold = fold;
    const slot = this.slots.slotOf(hash);
    const entry = this.slots.at(slot);
    return entry < 0 ? ~slot : entry;
  }

  private equals(entry: number, id: string, fold: boolean): boolean {
    const start = this.starts[entry] as number;
    const length = (entry + 1 < this.count ? (this.starts[entry + 1] as number) : this.used) - start;
    if (length !== id.length) return false;
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) {
      let a = bytes[start + i] as number;
      let b = id.charCodeAt(i);
      if (a === b) continue;
      if (!fold) return false;
      if (a >= 0x41 && a <= 0x5a) a |= 0x20;
      if (b >= 0x41 && b <= 0x5a) b |= 0x20;
      if (a !== b) return false;
    }
    return true;
  }

  /** Bytes of the compact ids in use. */
  private used = 0;

  /** Stores an id (ASCII) at a free slot; returns its entry number. */
  private add(id: string, hash: number, packed: number, slot: number): number {
    const entry = this.count;
    if (entry === this.starts.length) {
      this.starts = grown(this.starts, entry * 2);
      this.places = grown(this.places, entry * 2);
      this.hashes = grown(this.hashes, entry * 2);
    }
    if (this.used + id.length > this.bytes.length)
      this.bytes = grown(this.bytes, Math.max(this.bytes.length * 2, this.used + id.length));
    const bytes = this.bytes;
    for (let i = 0; i < id.length; i++) bytes[this.used + i] = id.charCodeAt(i);
    this.starts[entry] = this.used;
    this.used += id.length;
    this.places[entry] = packed;
    this.hashes[entry] = hash;
    this.count = entry + 1;
    this.slots.set(slot, entry);
    return entry;
  }

  /** The id of an entry as it was first stored. */
  private spellingOf(entry: number): string {
    const start = this.starts[entry] as number;
    const end = entry + 1 < this.count ? (this.starts[entry + 1] as number) : this.used;
    let text = '';
    for (let at = start; at < end; at += 4096)
      text += String.fromCharCode(...this.bytes.subarray(at, Math.min(end, at + 4096)));
    return text;
  }

  private fileIndex(file: string): number {
    // Almost always the one file, or the last one read.
    const last = this.files.length - 1;
    if (last >= 0 && this.files[last] === file) return last;
    const at = this.files.indexOf(file);
    if (at >= 0) return at;
    this.files.push(file);
    return this.files.length - 1;
  }
}

const MAP_IDS = 1 << 16;

/** Ids longer than this are kept as strings (no valid id is this long; it bounds the byte array's offsets). */
const MAX_COMPACT_LENGTH = 255;

/** The FNV-1a hash of an ASCII text (A-Z folded to a-z when `fold`), or -1 for one that is not. */
function asciiHash(text: string, fold: boolean): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return -1;
    hash = Math.imul(hash ^ (fold && c >= 0x41 && c <= 0x5a ? c | 0x20 : c), FNV_PRIME);
  }
  // The high bits mixed into the low ones the table uses; never negative.
  return (hash ^ (hash >>> 15)) & 0x7fffffff;
}

function grown<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(array: T, length: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(length);
  bigger.set(array);
  return bigger;
}

/** `line N`, or `FILE line N` when it is not in `file` (an invigilator id as an argument, one in --file). */
function placeText(place: IdPlace, file: string): string {
  return place.file === file ? `line ${place.line}` : `${place.file} line ${place.line}`;
}

/** Lines per file in the packed place: far above any file's line count. */
const LINE_SPAN = 2 ** 32;

/** A validation with one more problem (the record fails whatever else it had). */
export function withProblem<T>(validation: Validation<T>, problem: Problem): Validation<T> {
  return { ok: false, problems: validation.ok ? [problem] : [...validation.problems, problem] };
}
