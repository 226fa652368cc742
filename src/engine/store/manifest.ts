/**
 * The store's directory layout: CURRENT (the manifest) names the generation in force, and a
 * generation is one snapshot file plus one journal file. Switching CURRENT is the atomic step
 * of every compaction and every replacement.
 */
import { readRegularFile } from '../../system/regular-file.js';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { open, stat } from 'node:fs/promises';
import { StoreDamagedError } from '../../system/errors.js';
import { writeFileAtomic } from '../../system/atomic-file.js';
import { STORE_FORMAT, newerFormatError } from './snapshot.js';
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';
import type { StoreLineage as Lineage, StorePosition } from '../../port/integration-api.js';

export const CURRENT_FILE = 'CURRENT';

export const snapshotFileName = (generation: number): string => `snapshot-${generation}.ndjson`;
export const journalFileName = (generation: number): string => `journal-${generation}.ndjson`;
const GENERATION_FILE = /^(?:snapshot|journal)-(\d+)\.ndjson$/;

/** The generation a snapshot or journal file belongs to; undefined for any other name. */
export function generationOfFile(name: string): number | undefined {
  const generation = GENERATION_FILE.exec(name)?.[1];
  return generation === undefined ? undefined : Number(generation);
}

/** How many replaced generations CURRENT names, newest first (docs/store.md, "Files"). */
const LINEAGE = 32;

interface Manifest {
  format: number;
  generation: number;
  /** Where the generation came from (absent: a store an older examctl wrote last; [] for a new one). */
  from?: StorePosition[];
}

export async function readManifest(dir: string): Promise<Manifest> {
  const path = join(dir, CURRENT_FILE);
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT')
      throw new StoreDamagedError(`${dir}: not an examctl store (no ${CURRENT_FILE} file)`);
    if (systemErrorCode(error) === 'ENOTREG') throw new StoreDamagedError((error as Error).message, { cause: error });
    throw storeFileUnreadable(path, error);
  }
  let parsed: Partial<Manifest> & { examctl?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new StoreDamagedError(`${path}:1: invalid JSON`);
  }
  if (parsed?.examctl !== 'store' || typeof parsed.format !== 'number') {
    throw new StoreDamagedError(`${path}:1: not an examctl store manifest`);
  }
  if (parsed.format > STORE_FORMAT) throw newerFormatError(path, parsed.format);
  if (typeof parsed.generation !== 'number' || !Number.isSafeInteger(parsed.generation) || parsed.generation < 1) {
    throw new StoreDamagedError(`${path}:1: invalid generation`);
  }
  // Not a list: the store descends from nothing (docs/sync.md, "Drift"); a wrong item matches no position.
  const from = parsed.from === undefined || Array.isArray(parsed.from) ? parsed.from : [];
  return { format: parsed.format, generation: parsed.generation, from };
}

/** Points CURRENT at `generation`, compacted from the store at `lineage` (none: a new store's first). */
export async function writeManifest(dir: string, generation: number, lineage?: Lineage): Promise<void> {
  // [G, 0, ""]: below G (a CURRENT without `from`) the chain is unknown.
  const from = lineage ? [lineage[0], ...(lineage[1] ?? [[lineage[0][0], 0, '']])].slice(0, LINEAGE) : [];
  await writeFileAtomic(join(dir, CURRENT_FILE), async (writer) => {
    await writer.write(`${JSON.stringify({ examctl: 'store', format: STORE_FORMAT, generation, from })}\n`);
  });
}

export type { Lineage, StorePosition };

/** With `at`, the checksums of the journal's 4 KiB before its length and (at > 0) before `at`. */
export async function readStoreLineage(dir: string, at?: number): Promise<Lineage> {
  const { generation, from } = await readManifest(dir);
  const path = join(dir, journalFileName(generation));
  const journal = await stat(path, { bigint: true });
  const now: [number, number, string] = [generation, Number(journal.size), `${journal.ino}:${journal.birthtimeNs}`];
  if (at === undefined || !journal.isFile()) return [now, from]; // a FIFO's read would block
  const file = await open(path);
  const tail = (end: number, n = Math.min(end, 4096)) =>
    file.read(Buffer.alloc(n), 0, n, end - n).then((read) => crc32(read.buffer));
  const [last, line] = await Promise.all([tail(now[1]), tail(at)]).finally(() => file.close());
  return at > 0 ? [[...now, last], from, line] : [[...now, last], from];
}

/** Whether the store holds all it held at `then`: the same journal with its 4 KiB before it, or one compacted into it, as long or longer. */
export function descendsFrom([now, from, line]: Lineage, then: StorePosition): boolean {
  const grown = (at?: StorePosition) =>
    (at?.[0] === then[0] && at[2] === then[2] && at[1] >= then[1]) || (at?.[2] === '' && then[0] < at[0]);
  const same = line === undefined || then[3] === undefined || then[3] === line;
  return (grown(now) && same) || (!from ? now[0] > then[0] : from.some(grown));
}
