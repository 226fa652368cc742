// Time and peak RSS of the input readers on each hostile file (fixtures/hostile/generate.mjs).
// Not a test: run by hand after `npm run build`:
//   node test/input/measure-hostile.mjs [distDir] [timeoutSeconds]
// Each file is read in its own process under /usr/bin/time; prints one line per file:
// name, size, seconds, peak RSS, and the first 160 characters of the error (and its length).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateHostile } from '../../fixtures/hostile/generate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--read') {
  const [, , , distDir, file] = process.argv;
  const input = await import(pathToFileURL(path.join(distDir, 'input/format.js')).href);
  const columns = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Company', 'Labels'].map((name) => ({ name, kind: name === 'Labels' ? 'list' : 'string' }));
  let count = 0;
  try {
    for await (const batch of input.readRecords(file, { columns }).batches()) count += batch.length;
    process.stdout.write(`ok ${count} records`);
  } catch (error) {
    const message = String(error?.message ?? error);
    process.stdout.write(`${error?.constructor?.name} exit ${error?.exitCode ?? '?'} (${message.length} chars): ${message.slice(0, 160)}`);
  }
} else {
  const distDir = path.resolve(process.argv[2] ?? path.join(here, '../../dist'));
  const timeout = Number(process.argv[3] ?? 120);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'examctl-hostile-'));
  try {
    const files = await generateHostile(dir);
    for (const [name, file] of Object.entries(files)) {
      const size = fs.statSync(file).size;
      const started = Date.now();
      const run = spawnSync('/usr/bin/time', ['-f', '%e s %M KB', process.execPath, fileURLToPath(import.meta.url), '--read', distDir, file], {
        encoding: 'utf8',
        timeout: timeout * 1000,
        killSignal: 'SIGKILL',
      });
      const timedOut = run.error !== undefined || run.signal !== null;
      const measured = timedOut ? `>${timeout} s (killed), ${((Date.now() - started) / 1000).toFixed(1)} s wall` : run.stderr.trim().split('\n').pop();
      console.log(`${name} (${(size / 1024 / 1024).toFixed(1)} MB): ${measured} | ${run.stdout.replace(/\s+/g, ' ')}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
