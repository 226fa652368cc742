import { mkdir, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import type { Change } from '../../src/engine/store/contract.js';
import { snapshotFileName } from '../../src/engine/store/manifest.js';

/** Writes at `dir` (which must not exist) a store as examctl 0.x (format 1) wrote it: no hints, no hints version. */
export async function writeFormatOneStore(dir: string, content: readonly Change[]): Promise<void> {
  await mkdir(dir);
  const lines = content.map(({ collection, key, value }) => JSON.stringify({ c: collection, k: key, v: value }));
  let crc = 0;
  for (const line of lines) crc = crc32(line, crc);
  const snapshot = [
    JSON.stringify({ examctl: 'store-snapshot', format: 1, generation: 1 }),
    ...lines,
    JSON.stringify({ end: true, count: lines.length, crc: crc.toString(16).padStart(8, '0') }),
  ];
  await writeFile(join(dir, snapshotFileName(1)), `${snapshot.join('\n')}\n`);
  await writeFile(join(dir, 'journal-1.ndjson'), '');
  await writeFile(join(dir, 'CURRENT'), '{"examctl":"store","format":1,"generation":1}\n');
}
