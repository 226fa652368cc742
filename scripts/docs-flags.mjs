// `npm run docs:flags`: rewrites every `<!-- flags: ... -->` block of docs/*.md and README.md from
// the built command tree (dist/, which `npm run docs:flags` builds first), every `<!-- default: name -->`
// span from src/defaults.ts, every `<!-- takes: global flags -->` block from the command declarations' `takes`, every `<!-- api: ... -->` block of docs/api-reference.md from the rule
// tables, and docs/errors.md's `<!-- errors: codes -->` from src/system/error-codes.ts. How a block is written: scripts/doc-tables.ts (outside src/: no command loads it), bundled
// here into dist/doc-tables.mjs, its packages left to node_modules (the command tree's commander).
// test/docs/flag-tables.test.ts and test/docs/api-reference.test.ts fail while a block is out of date.
// `--out DIR`: every doc as generated is written under DIR (README.md, docs/NAME.md), none in place: the
// script run whole without touching the docs (test/docs/docs-flags-script.test.ts compares them).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outAt = process.argv.indexOf('--out');
const out = outAt === -1 ? undefined : process.argv[outAt + 1];
if (outAt !== -1 && !out) throw new Error('--out needs a directory');
const { buildProgram } = await import(join(root, 'dist/cli/command-tree.js'));
const { COMMANDS } = await import(join(root, 'dist/cli/program.js'));
const tables = join(root, 'dist/doc-tables.mjs');
await build({
  entryPoints: [join(root, 'scripts/doc-tables.ts')],
  outfile: tables,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
});
const { renderApiBlocks, renderDefaultSpans, renderErrorBlocks, renderFlagBlocks, renderTakesBlocks } = await import(
  tables
);

const quiet = { write: () => undefined };
const program = buildProgram(
  { stdout: quiet, stderr: quiet, env: {}, now: () => new Date(), isTTY: false, cwd: root },
  () => undefined,
  COMMANDS,
);
const docs = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];
let rewritten = 0;
for (const file of docs) {
  const before = readFileSync(file, 'utf8');
  const flags = renderFlagBlocks(before, program);
  const defaults = renderDefaultSpans(flags.text);
  const api = renderApiBlocks(defaults.text);
  const errors = renderErrorBlocks(api.text);
  const takes = renderTakesBlocks(errors.text);
  const text = takes.text;
  const blocks = [...flags.blocks, ...defaults.blocks, ...api.blocks, ...errors.blocks, ...takes.blocks];
  for (const block of blocks.filter((each) => !each.upToDate))
    console.error(`${relative(root, file)}: rewrote ${block.marker}`);
  if (out !== undefined) {
    const copy = join(out, relative(root, file));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, text);
  } else if (text !== before) writeFileSync(file, text);
  if (text !== before) rewritten += 1;
}
console.error(`${rewritten} file${rewritten === 1 ? '' : 's'} rewritten${out === undefined ? '' : ` (under ${out})`}`);
