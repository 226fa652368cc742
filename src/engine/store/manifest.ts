/**
 * The store's directory layout: CURRENT (the manifest) names the generation in force, and a
 * generation is one snapshot file plus one journal file. Switching CURRENT is the atomic step
 * of every compaction and every replacement.
 */
import { readRegularFile, readRegularFileSync } from '../../system/regular-file.js';
import { join } from 'node:path';
import { StoreDamagedError } from '../../system/errors.js';
import { writeFileAtomic } from '../../system/atomic-file.js';
import { STORE_FORMAT, newerFormatError } from './snapshot.js';
import { storeFileUnreadable, systemErrorCode } from '../../system/system-error-words.js';
import { isHead } from '../../domain/store-head.js';
import { CURRENT_FILE } from './current-file.js';

export { CURRENT_FILE };

export const snapshotFileName = (generation: number): string => `snapshot-${generation}.ndjson`;
export const journalFileName = (generation: number): string => `journal-${generation}.ndjson`;
const GENERATION_FILE = /^(?:snapshot|journal|heads|serials)-(\d+)\.ndjson$/;

/** The generation a snapshot, journal, heads or serials file belongs to; undefined for any other name. */
export function generationOfFile(name: string): number | undefined {
  const generation = GENERATION_FILE.exec(name)?.[1];
  return generation === undefined ? undefined : Number(generation);
}

interface Manifest {
  format: number;
  generation: number;
  /** The head the generation begins at (store-head.ts; absent: an older examctl wrote it last). */
  head?: string;
}

export async function readManifest(dir: string): Promise<Manifest> {
  const path = join(dir, CURRENT_FILE);
  return parseManifest(path, await readRegularFile(path).catch((error: unknown) => unread(dir, path, error)));
}

/**
 * readManifest on the event loop (regular-file.ts, readRegularFileSync: when), before each batch: bytes
 * the same as the last read's are the same manifest, not parsed again.
 */
export class ManifestReader {
  private readonly path: string;
  private last: { bytes: Buffer; manifest: Manifest } | undefined;

  constructor(private readonly dir: string) {
    this.path = join(dir, CURRENT_FILE);
  }

  readSync(): Manifest {
    let bytes: Buffer;
    try {
      bytes = readRegularFileSync(this.path);
    } catch (error) {
      unread(this.dir, this.path, error);
    }
    if (this.last !== undefined && bytes.equals(this.last.bytes)) return this.last.manifest;
    const manifest = parseManifest(this.path, bytes.toString('utf8'));
    this.last = { bytes, manifest };
    return manifest;
  }
}

function unread(dir: string, path: string, error: unknown): never {
  if (systemErrorCode(error) === 'ENOENT')
    throw new StoreDamagedError(`${dir}: not an examctl store (no ${CURRENT_FILE} file)`);
  if (systemErrorCode(error) === 'ENOTREG') throw new StoreDamagedError((error as Error).message, { cause: error });
  throw storeFileUnreadable(path, error);
}

function parseManifest(path: string, text: string): Manifest {
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
  if (parsed.head !== undefined && !isHead(parsed.head)) throw new StoreDamagedError(`${path}:1: invalid head`);
  return { format: parsed.format, generation: parsed.generation, ...(parsed.head && { head: parsed.head }) };
}

/** Points CURRENT at `generation`, which begins at `head`. */
export async function writeManifest(dir: string, generation: number, head: string): Promise<void> {
  await writeFileAtomic(join(dir, CURRENT_FILE), async (writer) => {
    await writer.write(`${JSON.stringify({ examctl: 'store', format: STORE_FORMAT, generation, head })}\n`);
  });
}
