/**
 * A target's whole sync memory as one checksummed document (docs/sync.md, "When the memory is lost"): each kind's
 * lines as strings, so a service that re-encodes JSON changes none of their bytes.
 */
import { canonicalJson, SYNC_KINDS, SYNC_MEMORY_VERSION, type SyncKind } from './memory-lines.js';
import {
  compactedLines,
  heldBy,
  memoryOfText,
  populationList,
  populationsOf,
  type MemoryContents,
} from './memory-files.js';
import { targetIdentity, type ReportTarget } from '../report/run-report.js';
import { UsageError } from '../system/errors.js';
import { sameStoreAs } from '../context/target.js';
import { JsonFault, MAX_JSON_DEPTH, parseJson } from '../system/json-scan.js';
import { hash } from 'node:crypto';

const DOCUMENT_FORMAT = 'examctl-sync-memory';
/** This document's own format; a reader refuses a newer one. */
const DOCUMENT_VERSION = 1;

interface DocumentBody {
  format: typeof DOCUMENT_FORMAT;
  version: number;
  /** Increases with each store (a Terraform state's serial: GitLab keeps a version per serial). */
  serial: number;
  target: ReportTarget;
  identity: string;
  memoryFormat: number;
  newestRun: string | null;
  /** Each kind's populations as `populationList` lists them, for a person reading the file. */
  populations: Partial<Record<SyncKind, ReturnType<typeof populationList>>>;
  memories: Partial<Record<SyncKind, string>>;
}

/** A document read and checked: its memories parsed (each line's checksum, its header and target). */
export type MemoryDocument = ReturnType<typeof readDocument>;

/** The newest run of a target's memories (every kind), or undefined when none holds one. */
export function newestRunOfMemories(memories: ReadonlyMap<SyncKind, MemoryContents>): string | undefined {
  let newest: string | undefined;
  // Collections by their entries: an older examctl's collection runs recorded no population.
  for (const [kind, contents] of memories) {
    const populations = kind === 'collections' ? contents.entries.populationsOfEntries() : populationsOf(contents);
    for (const { run } of populations.values()) if (newest === undefined || run > newest) newest = run;
  }
  return newest;
}

/** The document of a target's memories (kinds without one are left out), its text. */
export function documentText(target: ReportTarget, memories: ReadonlyMap<SyncKind, MemoryContents>, serial: number) {
  const body: DocumentBody = {
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    serial,
    target,
    identity: targetIdentity(target),
    memoryFormat: SYNC_MEMORY_VERSION,
    newestRun: null,
    populations: {},
    memories: {},
  };
  for (const kind of SYNC_KINDS) {
    const contents = memories.get(kind);
    if (contents === undefined || contents.lines === 0) continue;
    const populations = populationsOf(contents);
    body.populations[kind] = populationList(populations);
    body.memories[kind] = [...compactedLines(contents, target, populations)].join('');
  }
  body.newestRun = newestRunOfMemories(memories) ?? null;
  return summedText(body);
}

/** A document's text (deltas' and intents' too): its body and, last, the SHA-256 of its canonical JSON. */
export function summedText(body: object): string {
  return `${JSON.stringify({ ...body, sha256: checksumOf(body) })}\n`;
}

/** The checksum of a text documentText made: its last field. */
export function documentSum(text: string): string {
  return text.slice(-67, -3);
}

export function checksumOf(body: object): string {
  return hash('sha256', canonicalJson(body), 'hex');
}

/** Reads a document: exit 2 for anything not whole, of a format unknown, or whose checksum fails (`damagedAdvice`). */
export function readDocument(text: string, source: string, damagedAdvice?: string) {
  const refuse = (why: string): UsageError =>
    new UsageError(
      `${source}: not a sync memory examctl can use: ${why}${damagedAdvice === undefined ? '' : `; it is not used. ${damagedAdvice}`}`,
      { code: 'E2507' },
    );
  let parsed: unknown;
  try {
    parsed = parseJson(text, { depth: MAX_JSON_DEPTH });
  } catch (error) {
    throw refuse(
      error instanceof JsonFault && error.kind === 'depth'
        ? `${error.message} (forged or damaged)`
        : 'not a JSON document (cut short, or another file)',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== DOCUMENT_FORMAT) {
    throw refuse(`not an export of examctl synced export (no "format": "${DOCUMENT_FORMAT}")`);
  }
  const { sha256, ...body } = parsed as DocumentBody & { sha256?: unknown };
  if (typeof body.version !== 'number' || body.version > DOCUMENT_VERSION) {
    throw new UsageError(
      `${source}: written by a newer examctl (document format ${String(body.version)}; this one reads ${DOCUMENT_VERSION}): upgrade examctl`,
      { code: 'E2505' },
    );
  }
  if (typeof body.memoryFormat !== 'number' || body.memoryFormat > SYNC_MEMORY_VERSION) {
    throw new UsageError(
      `${source}: holds a sync memory of format ${String(body.memoryFormat)}, newer than this examctl reads (${SYNC_MEMORY_VERSION}): upgrade examctl`,
      { code: 'E2505' },
    );
  }
  if (typeof sha256 !== 'string' || sha256 !== checksumOf(body))
    throw refuse('its checksum does not hold (damaged, or edited by hand)');
  if (
    typeof body.target !== 'object' ||
    body.target === null ||
    typeof body.identity !== 'string' ||
    typeof body.memories !== 'object' ||
    body.memories === null
  ) {
    throw refuse('its target or memories are missing');
  }
  const memories = new Map<SyncKind, MemoryContents>();
  const texts = new Map<SyncKind, string>();
  for (const kind of SYNC_KINDS) {
    const memoryText = body.memories[kind];
    if (memoryText === undefined) continue;
    if (typeof memoryText !== 'string') throw refuse(`its ${kind} memory is not text`);
    const contents = memoryOfText(Buffer.from(memoryText, 'utf8'), `${source} (${kind})`, kind);
    // Inner against outer, each named as what it is: the run's own target is judged after (assertDocumentTarget).
    const inner = contents.target === undefined ? 'no target' : targetIdentity(contents.target);
    if (inner !== targetIdentity(body.target))
      throw refuse(
        `its ${kind} memory records the target ${inner}, but the document is of the target ${body.identity} (put together by hand?)`,
      );
    memories.set(kind, contents);
    texts.set(kind, memoryText);
  }
  return {
    serial: typeof body.serial === 'number' && Number.isSafeInteger(body.serial) ? body.serial : 0,
    target: body.target,
    newestRun: typeof body.newestRun === 'string' ? body.newestRun : undefined,
    memories,
    /**
     * The kinds' texts as the document holds them (on a state service: with the deltas stored since,
     * write-ahead.ts).
     */
    texts,
    /** Its checksum: the deltas stored on a state service name the document they extend by it. */
    sha256,
  };
}

/**
 * A document of another store is refused (exit 2 naming both, and `way`: what `synced import` says to
 * give); one of the store elsewhere (sameStoreAs, its heads) is made its own.
 */
export async function assertDocumentTarget(
  document: MemoryDocument,
  source: string,
  target: ReportTarget,
  refusal = { done: 'nothing sent', way: '' },
): Promise<void> {
  const identity = targetIdentity(document.target);
  if (identity === targetIdentity(target)) return;
  const of = await sameStoreAs(document.target, target);
  if (of !== 'path' && (of !== 'gone' || (await heldBy(document.memories.values(), target)) !== true)) {
    throw new UsageError(
      `${source}: this sync memory is of the target ${identity}, but this run's target is ${targetIdentity(target)}: refused, ${refusal.done} ` +
        `(a memory of another target would skip records never sent here)${refusal.way}`,
      { code: 'E2504' },
    );
  }
  for (const [kind, text] of document.texts) {
    const contents = memoryOfText(Buffer.from(text), source, kind);
    document.texts.set(kind, [...compactedLines(contents, target)].join(''));
  }
}
