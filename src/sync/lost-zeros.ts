/** Ids whose leading zeros a spreadsheet dropped, checked before anything is sent (docs/input-formats.md). */
import { ErrorCode } from '../domain/codes.js';
import type { Problem } from '../domain/problem.js';
import { UsageError } from '../system/errors.js';
import { formatCount } from '../formats/number-format.js';
import { terminalLine } from '../formats/terminal-text.js';
import type { InputRecord } from '../input/record.js';
import type { PeekedEntry } from './memory-lines.js';

/** The most leading zeros looked for in front of a new id (ids of up to 20 digits or so). */
const MAX_DROPPED_ZEROS = 12;
/** Digits a number holds exactly: a key of up to this many digits is kept as a number (no string per row). */
const EXACT_DIGITS = 15;
const ONLY_DIGITS = /^\d+$/;
/** How many lines the refusal names before it counts. */
const NAMED_LINES = 3;
const KEEP_AS_TEXT = 'Keep the ids as text in the export (docs/input-formats.md, "Leading zeros"); if they really are ';

/** A key's entry packed in one number: the first line it was met on, and its leading zeros (up to 15). */
const LINE_UNIT = 16;

const REALLY_NEW_IDS = '--really-new-ids';

/** How many leading zeros `id` (digits only) has, keeping its last digit: `000` has two. */
function leadingZeros(id: string): number {
  let zeros = 0;
  while (zeros < id.length - 1 && id.charCodeAt(zeros) === 0x30) zeros += 1;
  return zeros;
}

/** A refusal naming the first lines, then counting (`really`: what the ids are if they are really other ones). */
function refusal(says: string, named: readonly string[], why: string, really: string): UsageError {
  const more = named.length > NAMED_LINES ? `, ${formatCount(named.length - NAMED_LINES)} more` : '';
  return new UsageError(
    terminalLine(
      `${says} (${named.slice(0, NAMED_LINES).join('; ')}${more}): a spreadsheet that read the id column as numbers dropped them? Nothing was sent (${why}). ` +
        `${KEEP_AS_TEXT}${really}, run again with ${REALLY_NEW_IDS}`,
    ),
  );
}

/** One kind of id of the file, checked on its own (LostZerosRule holds one per kind). */
class LostZeros {
  /** Each id of digits by its value without leading zeros (packed, see LINE_UNIT). */
  private readonly seen = new Map<number | string, number>();
  /** Rows whose id another row gives with other leading zeros: line -> that other row. */
  readonly pairs = new Map<number, { id: string; line: number }>();
  /** The same pairs, each once, in the order found (`settle`). */
  private readonly pairList: {
    first: { id: string; line: number };
    then: { id: string; line: number };
    file: string;
  }[] = [];
  /** New ids the memory holds with leading zeros (`remembered`: that id). */
  private readonly twins: { id: string; file: string; line: number; remembered: string }[] = [];
  /** The ids of `twins` (a candidate of several schedules is named once). */
  private readonly twinIds = new Set<string>();

  constructor(readonly kind: ZeroKind) {}

  add(id: string, place: { file: string; line: number }): void {
    if (!ONLY_DIGITS.test(id)) return;
    const zeros = leadingZeros(id);
    const digits = zeros === 0 ? id : id.slice(zeros);
    const key: number | string = digits.length <= EXACT_DIGITS ? Number(digits) : digits;
    const packed = this.seen.get(key);
    if (packed === undefined) {
      this.seen.set(key, place.line * LINE_UNIT + Math.min(zeros, 15));
    } else {
      const firstLine = Math.floor(packed / LINE_UNIT);
      const firstZeros = packed % LINE_UNIT;
      // The same spelling again is a repeated id (record-job.ts, OneIdPerFile, says it); another is a pair.
      if (firstZeros !== Math.min(zeros, 15)) {
        const first = { id: '0'.repeat(firstZeros) + digits, line: firstLine };
        this.pairs.set(place.line, first);
        if (!this.pairs.has(firstLine)) this.pairs.set(firstLine, { id, line: place.line });
        // A candidate of several schedules is on several rows: each pair of spellings is named once.
        if (!this.pairList.some((pair) => pair.first.id === first.id && pair.then.id === id))
          this.pairList.push({ first, then: { id, line: place.line }, file: place.file });
      }
    }
    this.compare(id, place);
  }

  /** A new id the memory holds with leading zeros: kept to refuse the run (unless a pair of the file). */
  private compare(id: string, place: { file: string; line: number }): void {
    const memory = this.kind.memory;
    if (memory === undefined || this.twinIds.has(id) || memory.peek(id) !== undefined) return;
    let zeros = '0';
    for (let k = 1; k <= MAX_DROPPED_ZEROS; k++, zeros += '0') {
      if (memory.peek(zeros + id) === undefined) continue;
      this.twins.push({ id, file: place.file, line: place.line, remembered: zeros + id });
      this.twinIds.add(id);
      return;
    }
  }

  /** After the whole file: the refusals LostZerosRule names (exit 2, nothing sent). */
  settle(target: string): void {
    const { what, made } = this.kind;
    const twins = this.twins
      .filter((twin) => !this.pairs.has(twin.line))
      .map((twin) => `${twin.file}:${twin.line} ${twin.id} for ${twin.remembered}`);
    if (twins.length > 0) {
      const says = `the file gives ${formatCount(twins.length)} new ${what}${twins.length === 1 ? '' : 's'} that examctl synced to ${target} with leading zeros`;
      throw refusal(
        says,
        twins,
        `each would be created as a second ${made} beside the one synced before`,
        `new ${made}s`,
      );
    }
    const pairs = this.pairList;
    if (this.kind.pairsRefuseRun !== true || pairs.length === 0) return;
    const says = `the file gives ${pairs.length === 1 ? `two ${what}s that are one` : `${formatCount(pairs.length)} pairs of ${what}s that are each one`} once leading zeros are removed`;
    const named = pairs.map(
      ({ first, then, file }) => `${file}:${first.line} ${first.id} and ${file}:${then.line} ${then.id}`,
    );
    throw refusal(
      says,
      named,
      `each pair would be two ${made}s${made === 'user' ? ' of one person' : ''}`,
      `other ${made}s`,
    );
  }

  /** The problem of a row whose id another row of the file gives with other leading zeros (both fail). */
  problemAt(line: number, id: string | null): Problem | undefined {
    const other = this.pairs.get(line);
    if (other === undefined) return undefined;
    return {
      field: 'ExternalId',
      code: ErrorCode.IdsOneWithoutLeadingZeros,
      message:
        `ExternalId ${id ?? ''} and ${other.id} on line ${other.line} are one id once leading zeros are removed: a spreadsheet that read the id column as numbers? ` +
        `Neither is sent. Keep the ids as text (docs/input-formats.md, "Leading zeros"); if they are two users, ${REALLY_NEW_IDS}`,
    };
  }
}

/** One kind of id the rule checks. */
export interface ZeroKind {
  /** How the refusals name it: `id`, `candidate id`, `schedule id`. */
  what: string;
  /** What each would be made as twice: `user`, `schedule`. */
  made: string;
  idsOf(record: InputRecord): Iterable<string | null>;
  /** What it is compared with: the target's memory; undefined: pairs only. */
  memory: { peek(id: string): PeekedEntry | undefined } | undefined;
  /** A pair refuses the run (a unit of many rows: a schedule) rather than failing its rows. */
  pairsRefuseRun?: boolean;
}

/**
 * The one leading-zeros rule: each record is `add`ed, then `settle` refuses the run for a new id remembered with
 * zeros, or a pair where a unit is many rows; any other pair fails both its rows (`problemAt`).
 */
export class LostZerosRule {
  private readonly guards: LostZeros[];

  constructor(kinds: readonly ZeroKind[]) {
    this.guards = kinds.map((kind) => new LostZeros(kind));
  }

  add(record: InputRecord): void {
    for (const guard of this.guards)
      for (const id of guard.kind.idsOf(record)) if (id !== null) guard.add(id, record.source);
  }

  settle(target: string): void {
    for (const guard of this.guards) guard.settle(target);
  }

  /** The problem of a row one of a pair (LostZeros.problemAt), for the kinds whose rows fail. */
  problemAt(line: number, id: string | null): Problem | undefined {
    for (const guard of this.guards)
      if (guard.kind.pairsRefuseRun !== true && guard.pairs.has(line)) return guard.problemAt(line, id);
    return undefined;
  }

  /** Whether any row fails as one of a pair (the units are then checked). */
  get hasPairs(): boolean {
    return this.guards.some((guard) => guard.kind.pairsRefuseRun !== true && guard.pairs.size > 0);
  }
}
