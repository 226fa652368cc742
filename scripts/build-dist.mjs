// dist/: each module of src/ transpiled alone by esbuild (what tests, benches and scripts import;
// scripts/build-bundle.mjs then bundles the CLI). Types are not checked here: `tsc --noEmit`
// checks src/, test/ and bench/ at once, the first step of `npm test`, so a second tsc pass
// that only emits would spend ~12 s of CPU for the same files.
//
// Run: node scripts/build-dist.mjs
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const entryPoints = readdirSync(src, { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => join(entry.parentPath, entry.name));

await build({
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: src,
  platform: 'node',
  format: 'esm',
  target: 'es2023',
  sourcemap: true,
  tsconfig: join(root, 'tsconfig.json'),
  logLevel: 'warning',
});
