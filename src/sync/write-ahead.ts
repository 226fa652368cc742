/** A run's intents written ahead to a state service, its end stored as a delta (docs/sync.md, "Written ahead"). */
import { TargetError, UsageError } from '../system/errors.js';
import { SYNC_KINDS, type SyncKind } from './memory-lines.js';
import { jsonObject, type StateService } from './state-service.js';
import { checksumOf, newestRunOfMemories, readDocument, summedText, type MemoryDocument } from './memory-document.js';
import { memoryOfText, type MemoryContents } from './memory-files.js';

const FORMAT = 'examctl-sync-intents';
const DELTA_FORMAT = 'examctl-sync-delta';
/** Deltas a memory may have before it is stored whole (bounds a reader's requests and a quiet year's chain). */
export const MAX_DELTAS = 32;

type KindLines = Partial<Record<SyncKind, string>>;

/** One batch's document: batch `from` (`to`: the next) of run `run`, extending the memory of serial `serial`. */
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
type DeltaBody = Omit<IntentsBody, 'format' | 'from' | 'to'> & { format: typeof DELTA_FORMAT; base: string };

/** The address of a batch of intents (`intents-<n>`) or a delta (`delta-<n>`) beside the memory's. */
export function besideAddress(address: string, what: string): string {
  const url = new URL(address);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}-${what}`;
  return url.href;
}

/** The documents at `<address>-<what><n>` while `follows` takes each: a missing or damaged one ends them. */
async function chainOf<T extends IntentsBody | DeltaBody>(
  service: StateService,
  what: 'intents-' | 'delta-',
  follows: (body: T, n: number) => boolean,
) {
  const chain: { body: T; bytes: number }[] & { damaged?: unknown } = [];
  for (let n = what === 'delta-' ? 1 : 0; what === 'intents-' || n <= MAX_DELTAS; n++) {
    const where = besideAddress(service.address, `${what}${n}`);
    const text = await service.read(where);
    const body = text === undefined ? undefined : besideOf(text, where, what === 'delta-' ? DELTA_FORMAT : FORMAT);
    if (body instanceof UsageError && what === 'intents-') throw body;
    if (body instanceof UsageError) chain.damaged = body;
    if (body === undefined || body instanceof UsageError || !follows(body as T, n)) break;
    chain.push({ body: body as T, bytes: text!.length });
  }
  return chain;
}

/** The lines of a chain's documents, by kind, one after the other. */
function linesOf(chain: readonly { body: IntentsBody | DeltaBody }[]): KindLines {
  const lines: KindLines = {};
  for (const { body } of chain)
    for (const [kind, text] of Object.entries(body.lines) as [SyncKind, string][])
      lines[kind] = (lines[kind] ?? '') + text;
  return lines;
}

/** Stores delta `n` of the document of checksum `base` (read back: write). */
export async function storeDelta(service: StateService, n: number, body: Omit<DeltaBody, 'format' | 'version'>) {
  const text = summedText({ format: DELTA_FORMAT, version: 1, ...body });
  await service.write(text, undefined, besideAddress(service.address, `delta-${n}`));
}

/** `document` with its deltas appended, and a lost run's intents (`folded`); `parse`: memories parsed with both. */
export async function readServiceMemory(service: StateService, document: MemoryDocument | undefined, parse: boolean) {
  const chain =
    document === undefined
      ? []
      : await chainOf<DeltaBody>(
          service,
          'delta-',
          (body, n) => body.base === document.sha256 && body.serial === document.serial + n,
        );
  const added = linesOf(chain);
  if (document !== undefined) document.serial += chain.length;
  const folded = await intentsToFold(service, document?.serial ?? 0);
  // A damaged delta beside its run's intents: a store not taken.
  if (chain.damaged !== undefined && folded === undefined) throw chain.damaged;
  for (const kind of document === undefined ? [] : SYNC_KINDS) {
    if (added[kind] === undefined && folded?.lines[kind] === undefined) continue;
    const text = (document!.texts.get(kind) ?? '') + (added[kind] ?? '');
    if (added[kind] !== undefined) document!.texts.set(kind, text);
    if (parse)
      document!.memories.set(
        kind,
        memoryOfText(
          Buffer.from(text + (folded?.lines[kind] ?? ''), 'utf8'),
          `${service.address} (${kind})`,
          kind,
          document!.target,
        ),
      );
  }
  return { deltas: chain.length, deltaBytes: chain.reduce((sum, { bytes }) => sum + bytes, 0), folded };
}

/** The memory a service holds, checked (exit 2), with its deltas and a lost run's intents; undefined: none yet. */
export async function readServiceDocument(service: StateService, advice?: string): Promise<MemoryDocument | undefined> {
  const text = await service.read();
  if (text === undefined) return firstIntents(service);
  const document = readDocument(text, service.address, advice);
  await readServiceMemory(service, document, true);
  return document;
}

/** No document yet, only what a lost first run wrote ahead: read as the next run takes it in. */
async function firstIntents(service: StateService): Promise<MemoryDocument | undefined> {
  const lines = (await intentsToFold(service, 0))?.lines ?? {};
  const memories = new Map<SyncKind, MemoryContents>();
  for (const kind of SYNC_KINDS) {
    const text = lines[kind];
    if (text !== undefined)
      memories.set(kind, memoryOfText(Buffer.from(text, 'utf8'), `${service.address} (${kind})`, kind));
  }
  const first = [...memories.values()].find((contents) => contents.target !== undefined);
  if (first?.target === undefined) return undefined;
  return {
    serial: 0,
    target: first.target,
    newestRun: newestRunOfMemories(memories),
    memories,
    texts: new Map(),
    sha256: '',
  };
}

/**
 * Uploads batch `from` of a run's lines; throws when the service does not take it (nothing of the batch may go
 * then).
 */
export async function writeAhead(
  service: StateService,
  { serial, run, from }: Pick<IntentsBody, 'serial' | 'run' | 'from'>,
  lines: KindLines,
): Promise<void> {
  // Batch 0 may hold a lost run's intents: put back if this one does not take.
  await service.write(
    summedText({ format: FORMAT, version: 1, serial, run, from, to: from + 1, lines }),
    undefined,
    besideAddress(service.address, `intents-${from}`),
    from === 0,
  );
}

/**
 * What a run that never stored its end wrote ahead on the memory of `serial`, and that run: batch 0's run is the
 * newest (a later run writes what it took in again in its own first), its batches while each is its next.
 */
async function intentsToFold(service: StateService, serial: number) {
  let run: string | undefined;
  const chain = await chainOf<IntentsBody>(
    service,
    'intents-',
    (body, n) => body.serial === serial && body.from === n && (run ??= body.run) === body.run,
  );
  return run === undefined || chain.length === 0 ? undefined : { run, lines: linesOf(chain) };
}

/** `synced forget`: the batches and deltas beside the document removed too (exit 3 saying what is left). */
export async function forgetBeside(service: StateService): Promise<void> {
  await removeBeside(service, 'intents-')
    .then(() => removeBeside(service, 'delta-'))
    .catch((error: Error) => {
      const why = `${error.message}: a night may take in the intents left; examctl synced forget again removes them`;
      throw new TargetError(
        `the sync memory at ${service.address} is forgotten (its document removed), but not all beside it (${why})`,
      );
    });
}

/** The batches of intents or the deltas removed, up to the first missing. */
async function removeBeside(service: StateService, what: 'intents-' | 'delta-'): Promise<void> {
  for (let n = what === 'delta-' ? 1 : 0; ; n++) {
    const where = besideAddress(service.address, `${what}${n}`);
    if ((await service.read(where)) === undefined) return;
    await service.remove(undefined, where);
  }
}

/** A batch's or a delta's document read and checked: one that does not hold is an exit 2 error, returned. */
function besideOf(text: string, where: string, format: string): IntentsBody | DeltaBody | UsageError {
  const { sha256, ...body } = jsonObject(text) as Partial<IntentsBody & { sha256: unknown }>;
  const lines = body.lines as Record<string, unknown> | undefined;
  if (
    body.format !== format ||
    typeof body.run !== 'string' ||
    typeof body.serial !== 'number' ||
    typeof lines !== 'object' ||
    lines === null ||
    sha256 !== checksumOf(body)
  ) {
    const what =
      format === FORMAT ? 'the intents of a run examctl wrote ahead' : 'a delta of the sync memory examctl stored';
    return new UsageError(
      `${where}: not ${what}, or damaged: what a run sent is not known. Move it aside on the service, then rebuild the memory (examctl synced adopt)`,
      { code: 'E2507' },
    );
  }
  if (
    !Object.entries(lines).every(([kind, value]) => SYNC_KINDS.includes(kind as SyncKind) && typeof value === 'string')
  )
    return new UsageError(`${where}: its lines are not texts by kind`, { code: 'E2507' });
  return body as IntentsBody | DeltaBody;
}
