// Deterministic benchmark data: the same rows on every machine and every run.
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const dataDir = join(dirname(fileURLToPath(import.meta.url)), '.data');

const FIRST = ['Ada', 'Ben', 'Chloé', 'Dara', 'Emil', 'Fatima', 'Goran', 'Hana', 'Ines', 'Jonas'];
const LAST = ['Ng', 'Okafor', 'Petrov', 'Quinn', 'Rossi', 'Schmidt', 'Tanaka', 'Umar', 'Varga', 'Weiss'];

export function userRow(i, prefix = 'u') {
  const first = FIRST[i % FIRST.length];
  const last = LAST[(i * 7) % LAST.length];
  const id = `${prefix}-${String(i).padStart(7, '0')}`;
  const special = i % 10 === 0;
  return [
    id,
    first,
    last,
    `${id}@example.test`,
    `${prefix}${i}`,
    'Candidate',
    special ? 'yes' : 'no',
    special ? '25' : '',
    i % 3 === 0 ? 'cohort-a|bench' : 'bench',
    'Example Corp',
    'Utrecht',
  ];
}

export const USER_HEADER = [
  'ExternalId',
  'FirstName',
  'LastName',
  'Email',
  'UserName',
  'Role',
  'SpecialNeeds',
  'ReasonableAdjustmentPercentage',
  'Labels',
  'Company',
  'City',
];

function csvCell(value) {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Writes (once) a users CSV of `rows` rows and returns its path. */
export async function usersCsv(rows, prefix = 'u') {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, `users-${prefix}-${rows}.csv`);
  if (existsSync(file)) return file;
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  out.write(USER_HEADER.join(',') + '\n');
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    chunk += userRow(i, prefix).map(csvCell).join(',') + '\n';
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  const { renameSync } = await import('node:fs');
  renameSync(tmp, file);
  return file;
}
