/**
 * A run's intents on a state service, written ahead (docs/sync.md, "Written ahead"): the lines a
 * run appends to its copy of the memory (what it is about to send, then what was acknowledged)
 * reach the service before the requests they are for go out, batch by batch, at the addresses
 * `<address>-intents-<level>` beside the memory. The batches are kept as a binary counter (level
 * j holds 2^j of them, merged as the count carries), so each line is uploaded about log2(batches)
 * times, never the memory once per batch. Each level names the memory's serial it extends: the
 * run's store of the memory at its end changes the serial, so only the intents of a run that
 * never stored its end (killed, its runner lost) are folded into the memory by the next reader.
 *
 * A run's end stores only what it added (docs/sync.md, "Stored as deltas"): the lines its copy
 * gained, at `<address>-delta-<n>`, naming the document they extend by its checksum and the serial
 * they bring the memory to. A reader takes the document, then delta 1, 2, ... while each names that
 * document and the next serial: a delta of an older document (the memory stored whole since) or a
 * delta not yet written ends the chain, so whatever a kill leaves is a memory a reader can load.
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
const DELTA_FORMAT = 'examctl-sync-delta';
/** Deltas a memory may have before it is stored whole (bounds a reader's requests and a quiet year's chain). */
export const MAX_DELTAS = 32;
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

/** One delta: what run `run` added to the document of checksum `base`, bringing the memory to serial `serial`. */
interface DeltaBody {
  format: typeof DELTA_FORMAT;
  version: 1;
  base: string;
  serial: number;
  run: string;
  lines: KindLines;
}

/** The address of a level (`intents-<level>`) or a delta (`delta-<n>`): the memory's address with `-<what>` added to its path. */
export function besideAddress(address: string, what: string): string {
  const url = new URL(address);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}-${what}`;
  return url.href;
}

export const intentsAddress = (address: string, level: number): string => besideAddress(address, `intents-${level}`);
const deltaAddress = (address: string, n: number): string => besideAddress(address, `delta-${n}`);

/** A body with its checksum, as the service keeps it. */
function summed(body: IntentsBody | DeltaBody): string {
  return `${JSON.stringify({ ...body, sha256: hash('sha256', canonicalJson(body), 'hex') })}\n`;
}

/** Stores delta `n` of the document of checksum `base` (read back: write); returns its size. */
export async function storeDelta(service: StateService, n: number, body: Omit<DeltaBody, 'format' | 'version'>): Promise<number> {
  const text = summed({ format: DELTA_FORMAT, version: 1, ...body });
  await service.write(text, undefined, deltaAddress(service.address, n));
  return text.length;
}

/** What lies on a service beside its document: the deltas read (appended to the document's texts), and a lost run's intents. */
export interface ServiceMemory {
  deltas: number;
  deltaBytes: number;
  /** What a run that never stored its end wrote ahead (intentsToFold), not in the document's texts. */
  folded: { run: string; lines: KindLines } | undefined;
}

/**
 * The memory a service holds on top of `document` (none: no memory yet): its deltas appended to
 * its texts, its serial the last delta's, and what a run that never stored its end wrote ahead on
 * that; with `parse`, its memories parsed again with both (a reader's; a run's copy parses its files).
 */
export async function readServiceMemory(service: StateService, document: MemoryDocument | undefined, parse: boolean): Promise<ServiceMemory> {
  const added: Record<string, string> = {};
  let deltas = 0;
  let deltaBytes = 0;
  for (let n = 1; document !== undefined && n <= MAX_DELTAS; n++) {
    const where = deltaAddress(service.address, n);
    const text = await service.read(where);
    const body = text === undefined ? undefined : (besideOf(text, where, DELTA_FORMAT) as DeltaBody);
    if (body?.base !== document.sha256 || body.serial !== document.serial + 1) break;
    for (const [kind, lines] of Object.entries(body.lines)) added[kind] = (added[kind] ?? '') + lines;
    document.serial = body.serial;
    deltas = n;
    deltaBytes += text!.length;
  }
  const folded = await intentsToFold(service, document?.serial ?? 0);
  for (const kind of document === undefined ? [] : SYNC_KINDS) {
    if (added[kind] === undefined && folded?.lines[kind] === undefined) continue;
    const text = (document!.texts.get(kind) ?? '') + (added[kind] ?? '');
    if (added[kind] !== undefined) document!.texts.set(kind, text);
    if (parse) document!.memories.set(kind, memoryOfText(Buffer.from(text + (folded?.lines[kind] ?? ''), 'utf8'), `${service.address} (${kind})`, kind, document!.target));
  }
  return { deltas, deltaBytes, folded };
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
    const text = summed(carry);
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
    const body = besideOf(text, where, FORMAT) as IntentsBody;
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

/** `synced forget`, and a memory stored whole: the levels of intents (`intents-`) or the deltas (`delta-`, from 1) removed, up to the first missing. */
export async function removeBeside(service: StateService, what: 'intents-' | 'delta-'): Promise<void> {
  for (let n = what === 'delta-' ? 1 : 0; n <= MAX_LEVELS; n++) {
    const where = besideAddress(service.address, `${what}${n}`);
    if ((await service.read(where)) === undefined) return;
    await service.remove(undefined, where);
  }
}

/** A level's or a delta's document read and checked: one that does not hold is exit 2 (what it held is not known). */
function besideOf(text: string, where: string, format: string): IntentsBody | DeltaBody {
  let parsed: ((IntentsBody | DeltaBody) & { sha256?: unknown }) | undefined;
  try {
    parsed = parseJson(text, { depth: MAX_JSON_DEPTH }) as (IntentsBody | DeltaBody) & { sha256?: unknown };
  } catch {
    // Said below.
  }
  const { sha256, ...body } = parsed ?? ({} as Partial<IntentsBody & { sha256: unknown }>);
  const lines = body.lines as Record<string, unknown> | undefined;
  if (body.format !== format || typeof body.run !== 'string' || typeof body.serial !== 'number' || typeof lines !== 'object' || lines === null || sha256 !== hash('sha256', canonicalJson(body), 'hex')) {
    const what = format === FORMAT ? 'the intents of a run examctl wrote ahead' : 'a delta of the sync memory examctl stored';
    throw new UsageError(`${where}: not ${what}, or damaged: what a run sent is not known. Move it aside on the service, then rebuild the memory (examctl synced adopt)`);
  }
  if (!Object.entries(lines).every(([kind, value]) => SYNC_KINDS.includes(kind as SyncKind) && typeof value === 'string')) throw new UsageError(`${where}: its lines are not texts by kind`);
  return body as IntentsBody | DeltaBody;
}
