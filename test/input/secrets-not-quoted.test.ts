/**
 * Issue 81, "secrets never quoted from inputs": a token file given by mistake as --file is
 * described in the header message, never shown: by its shape (`EAPI x`, `Bearer x`, `x=...`, one
 * word of any length) or because examctl holds that token (EXAMCTL_TOKEN), split by `,` or not.
 */
import { describe, expect, it } from 'vitest';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { examctlStep } from '../support/in-process.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

describe('a token given as --file is described, never quoted', () => {
  it.each([
    ['EAPI s3cr3t-tok-XYZ,abc', 'EAPI s3cr3t-tok-XYZ,abc', 's3cr3t-tok-XYZ'],
    ['Bearer abcdefghijklmnopqrstuvwxyz0123', undefined, 'abcdefghijklmnopqrstuvwxyz0123'],
    ['shorttok', undefined, 'shorttok'],
    ['api_key=K3yK3yK3y;FirstName', undefined, 'K3yK3yK3y'],
    ['zz9-tok,FirstName', 'zz9-tok', 'zz9-tok'],
  ])('%s: exit 2, the header message shows none of it', async (content, token, secret) => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'token.txt'), `${content}\n`);
      const env: Record<string, string> = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      if (token !== undefined) env.EXAMCTL_TOKEN = token;
      const io = testDeps(dir, {}, env);
      const argv = ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'token.txt'];
      expect(await runCli(argv, io.deps)).toBe(2);
      expect(io.stderr.text).toContain('token.txt:1');
      expect(io.stderr.text).not.toContain(secret);
      expect(io.stderr.text).toContain('(not shown');
    });
  });
});

/** Every file under `dir` as text, a workbook's parts inflated (its cells are deflated). */
async function textsUnder(dir: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const bytes = await readFile(file);
    texts.set(file, file.endsWith('.xlsx') ? zipTexts(bytes) : bytes.toString('utf8'));
  }
  return texts;
}

/** The parts of a zip archive, by its central directory (a streamed part's local header has no size), as one text. */
function zipTexts(zip: Buffer): string {
  const parts: string[] = [];
  const directory = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(directory + 16);
  for (let count = zip.readUInt16LE(directory + 10); count > 0; count--) {
    const [method, size, local] = [zip.readUInt16LE(at + 10), zip.readUInt32LE(at + 20), zip.readUInt32LE(at + 42)];
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const body = zip.subarray(start, start + size);
    parts.push((method === 8 ? inflateRawSync(body) : body).toString('utf8'));
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  expect(parts.length).toBeGreaterThan(0);
  return parts.join('\n');
}

describe('a secret in a data cell or as a JSON key is quoted nowhere (issue 81)', () => {
  const header =
    'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies,Labels,SpecialNeeds,ReasonableAdjustmentPercentage';
  it.each([
    ['EXAMCTL_TOKEN', 'tok-Zq81-env-4f2a9c'],
    ["a profile's token file (not the one the run uses)", 'tok-Zq81-profile-77b1d0'],
  ])('held from %s: stdout, stderr, --json, the journal and every report show none of it', async (from, token) => {
    await withTempDir(async (dir) => {
      const env: Record<string, string> = {};
      if (from === 'EXAMCTL_TOKEN') env.EXAMCTL_TOKEN = token;
      else {
        env.EXAMCTL_CONFIG_DIR = join(dir, 'config');
        await mkdir(env.EXAMCTL_CONFIG_DIR, { mode: 0o700 });
        await writeFile(join(dir, 'config', 'prod.token'), `${token}\n`, { mode: 0o600 });
        const profiles = { prod: { baseUrl: 'https://exams.example.test', tokenFile: 'prod.token' } };
        await writeFile(join(dir, 'config', 'config.json'), JSON.stringify({ version: 1, profiles }), { mode: 0o600 });
      }
      const inputs = join(dir, 'in');
      await mkdir(inputs);
      // A data cell a per-field error quotes (ReasonableAdjustmentPercentage), one only echoed (FirstName), a key.
      await writeFile(join(inputs, 'u.csv'), `${header}\ne1,${token},x,e1@example.test,e1,Candidate,,,,${token}\n`);
      const record = { ExternalId: 'e2', FirstName: 'a', LastName: 'b', Email: 'e2@example.test', [token]: 1 };
      await writeFile(join(inputs, 'u.json'), JSON.stringify([{ ...record, ReasonableAdjustmentPercentage: token }]));
      const out = join(dir, 'out');
      await mkdir(out);
      const store = ['--target', 'local', '--store', join(dir, 'store')];
      for (const file of ['u.csv', 'u.json'])
        for (const kind of ['csv', 'xlsx', 'html', 'json']) {
          const report = join(out, `${file}.${kind}`);
          const run = await examctlStep(
            [...store, 'user', 'sync', '--file', join(inputs, file), '--report', report, '--json'],
            dir,
            env,
          );
          expect(run.code).toBe(1);
          expect(run.stdout).not.toContain(token);
          expect(run.stderr).not.toContain(token);
          // The values are described where a message quoted them.
          expect(run.stdout).toMatch(/\b\d+ characters .*\(not shown\)/);
        }
      const texts = await textsUnder(dir);
      const journals = [...texts.keys()].filter((file) => file.endsWith('journal.ndjson'));
      expect(journals.length).toBe(8);
      expect([...texts.keys()].filter((file) => file.startsWith(out)).length).toBe(8);
      const showing = [...texts].filter(([file, text]) => !file.startsWith(inputs) && text.includes(token));
      expect(showing.map(([file]) => file)).toEqual(
        from === 'EXAMCTL_TOKEN' ? [] : [join(dir, 'config', 'prod.token')],
      );
      // The echoed input row keeps its place: the cell is written [redacted].
      expect(texts.get(join(out, 'u.csv.csv'))).toContain('e1,[redacted],x,');
    });
  });
});
