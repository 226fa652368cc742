/**
 * A run's intents on a state service, written ahead (docs/sync.md, "Written ahead"): the lines a
 * run appends to its copy of the memory (what it is about to send, then what was acknowledged)
 * reach the service before the requests they are for go out, batch by batch, at the addresses
 * `<address>-intents-<level>` beside the memory. The batches are kept as a binary counter (level
 * j holds 2^j of them, merged as the count carries), so each line is uploaded about log2(batches)
 * times, never the memory once per batch. Each level names the memory's serial it extends: the
 * run's store of the memory at its end changes the serial, so only the intents of a run that
 * never stored its end (killed, its runner lost) are folded into the memory by the next reader.
 */
import { hash } from 'node:crypto';
import { UsageError } from '../system/errors.js';
import { MAX_JSON_DEPTH, parseJson } from '../system/json-scan.js';
import { canonicalJson, SYNC_KINDS, type SyncKind } from './memory-lines.js';
import type { StateService } from './state-service.js';
import type { MemoryDocument } from './memory-document.js';
import { memoryOfText } from './memory-files.js';
import type { ReportTarget } from '../report/run-report.js';

const FORMAT = 'examctl-sync-intents';
/** Levels a reader looks at: 2^32 batches is more than any run makes. */
const MAX_LEVELS = 32;

type KindLines = Partial<Record<SyncKind, string>>;

/** One level's document: batches `from` .. `to` (exclusive) of run `run`, extending the memory of serial `serial`. */
interface IntentsBody {
  format: typeof FORMAT;
  version: 1;
  serial: number;
  run: string;
  from: number;
  to: number;
  lines: KindLines;
}

/** The address of a level: the memory's address with `-intents-<level>` added to its path. */
export function intentsAddress(address: string, level: number): string {
  const url = new URL(address);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}-intents-${level}`;
  return url.href;
}

/** The batches of one run written ahead, level by level (each a binary digit of the count so far). */
export class WriteAhead {
  private readonly levels: (IntentsBody | undefined)[] = [];
  private count = 0;

  constructor(
    private readonly service: StateService,
    private readonly run: string,
    private readonly serial: number,
  ) {}

  /** Uploads one batch of lines (by kind); throws when the service does not take it (nothing of the batch may be sent then). */
  async push(lines: KindLines): Promise<void> {
    let carry: IntentsBody = { format: FORMAT, version: 1, serial: this.serial, run: this.run, from: this.count, to: this.count + 1, lines };
    let level = 0;
    for (; this.levels[level] !== undefined; level++) {
      const lower = this.levels[level]!;
      this.levels[level] = undefined;
      const merged: KindLines = {};
      for (const kind of SYNC_KINDS) if (lower.lines[kind] !== undefined || carry.lines[kind] !== undefined) merged[kind] = (lower.lines[kind] ?? '') + (carry.lines[kind] ?? '');
      carry = { ...carry, from: lower.from, lines: merged };
    }
    const text = `${JSON.stringify({ ...carry, sha256: hash('sha256', canonicalJson(carry), 'hex') })}\n`;
    await this.service.write(text, undefined, intentsAddress(this.service.address, level));
    this.levels[level] = carry;
    this.count += 1;
  }
}

/**
 * The lines, by kind, that a run which never stored its end wrote ahead on top of the memory of
 * serial `serial` (none: nothing to fold), and that run. Of several such runs (each folded the
 * one before into its own first batch) the newest is taken; its levels are taken in order from
 * its first batch on, each covering what the lower ones it was merged from held.
 */
export async function intentsToFold(service: StateService, serial: number): Promise<{ run: string; lines: KindLines } | undefined> {
  const found: IntentsBody[] = [];
  for (let level = 0; level < MAX_LEVELS; level++) {
    const where = intentsAddress(service.address, level);
    const text = await service.read(where);
    if (text === undefined) break;
    const body = intentsOf(text, where);
    if (body.serial === serial) found.push(body);
  }
  const run = found.reduce<string | undefined>((newest, body) => (newest === undefined || body.run > newest ? body.run : newest), undefined);
  if (run === undefined) return undefined;
  const lines: Record<string, string> = {};
  let next = 0;
  for (const body of found.filter((each) => each.run === run).sort((a, b) => a.from - b.from || b.to - a.to)) {
    if (body.from !== next) continue;
    for (const [kind, text] of Object.entries(body.lines)) lines[kind] = (lines[kind] ?? '') + text;
    next = body.to;
  }
  return { run, lines };
}

/** A document read from the service with what a run that never stored its end wrote ahead on it (`intentsToFold`), parsed in place. */
export async function withIntents(service: StateService, document: MemoryDocument, target: ReportTarget): Promise<MemoryDocument> {
  const folded = await intentsToFold(service, document.serial);
  for (const [kind, lines] of Object.entries(folded?.lines ?? {}) as [SyncKind, string][]) {
    document.memories.set(kind, memoryOfText(Buffer.from((document.texts.get(kind) ?? '') + lines, 'utf8'), `${service.address} (${kind})`, kind, target));
  }
  return document;
}

/** `synced forget`: every level of intents removed with the memory. */
export async function forgetIntents(service: StateService): Promise<void> {
  for (let level = 0; level < MAX_LEVELS; level++) {
    const where = intentsAddress(service.address, level);
    if ((await service.read(where)) === undefined) return;
    await service.remove(undefined, where);
  }
}

/** A level's document read and checked: one that does not hold is exit 2 (the intents it held are not known). */
function intentsOf(text: string, where: string): IntentsBody {
  let parsed: (IntentsBody & { sha256?: unknown }) | undefined;
  try {
    parsed = parseJson(text, { depth: MAX_JSON_DEPTH }) as IntentsBody & { sha256?: unknown };
  } catch {
    // Said below.
  }
  const { sha256, ...body } = parsed ?? ({} as Partial<IntentsBody & { sha256: unknown }>);
  const lines = body.lines as Record<string, unknown> | undefined;
  if (body.format !== FORMAT || typeof body.run !== 'string' || typeof body.serial !== 'number' || typeof lines !== 'object' || lines === null || sha256 !== hash('sha256', canonicalJson(body), 'hex')) {
    throw new UsageError(`${where}: not the intents of a run examctl wrote ahead, or damaged: the requests of a run that never stored its end are not known. Move it aside on the service, then rebuild the memory (examctl synced adopt)`);
  }
  if (!Object.entries(lines).every(([kind, value]) => SYNC_KINDS.includes(kind as SyncKind) && typeof value === 'string')) throw new UsageError(`${where}: its lines are not texts by kind`);
  return body as IntentsBody;
}
