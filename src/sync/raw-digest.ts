/** The raw digest: a row judged unchanged without building its request (docs/sync.md, "The raw digest"). */
import { createHash, hash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { shippedAsset } from '../system/shipped-file.js';

/** This scheme's own version: a change to what is hashed changes every raw digest. */
const RAW_FORMAT = 'examctl-raw-digest-1';

/** Bytes of a raw digest kept (128 bits: 22 characters of base64url), so a memory line grows by 30 bytes, not 50. */
const RAW_DIGEST_BYTES = 16;

/** The fingerprint of the rules turning a row into a request; undefined when unreadable (no raw digest then). */
export async function rulesFingerprint(build: { toString(): string }): Promise<string | undefined> {
  const parts = await (rulesText ??= rulesParts());
  if (parts === undefined) return undefined;
  const digest = createHash('sha256').update(`${RAW_FORMAT}\n${process.version}\n${build.toString()}\n`);
  for (const part of parts) digest.update(part);
  return `${digest.digest('base64url')}\n`;
}

/** The rules' text, read once per process: the code this process runs does not change under it. */
let rulesText: Promise<(string | Buffer)[] | undefined> | undefined;

/** What the fingerprint hashes after the build: the bundle's, or the domain modules' names and text. */
async function rulesParts(): Promise<(string | Buffer)[] | undefined> {
  try {
    const bundle = await bundleParts();
    if (bundle !== undefined) return bundle;
    // The module's own extension: the built .js files, or the .ts sources when run from src/ (tests).
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const dir = new URL('../domain/', import.meta.url);
    const names = (await readdir(dir)).filter((name) => name.endsWith(extension)).sort();
    if (names.length === 0) return undefined;
    const parts: (string | Buffer)[] = [];
    for (const name of names) parts.push(`${name}\n`, await readFile(new URL(name, dir)));
    return parts;
  } catch {
    return undefined;
  }
}

/** The bundle's chunk names and its entry's text; undefined without a bundle (src/ run by the tests). */
async function bundleParts(): Promise<(string | Buffer)[] | undefined> {
  const dir = new URL('../bundle/', import.meta.url);
  // The one-file executable: its script's SHA-256, an asset its build wrote (system/shipped-file.ts).
  const shipped = shippedAsset(fileURLToPath(new URL('examctl.sha256', dir)));
  if (shipped !== undefined) return ['executable\n', shipped];
  const names = await readdir(dir).then(
    (all) => all.filter((name) => name.endsWith('.mjs')).sort(),
    () => undefined,
  );
  if (!names?.includes('examctl.mjs')) return undefined;
  return [`bundle\n${names.join('\n')}\n`, await readFile(new URL('examctl.mjs', dir))];
}

/**
 * The raw digest of a table row's fields (strings and lists); undefined for JSON's typed values.
 * Keys in the header's order: another order only costs the shortcut, never a wrong verdict.
 */
export function rawDigest(fingerprint: string, fields: Readonly<Record<string, unknown>>): string | undefined {
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'string') continue;
    if (!Array.isArray(value)) return undefined;
    for (const item of value) if (typeof item !== 'string') return undefined;
  }
  // The first 16 bytes encoded, not a slice of the whole digest's text (it would keep that text
  // alive), nor a Buffer of its own (an ArrayBuffer per row for the GC): one from Node's pool.
  return Buffer.from(hash('sha256', fingerprint + JSON.stringify(fields), 'binary'), 'latin1').toString(
    'base64url',
    0,
    RAW_DIGEST_BYTES,
  );
}
