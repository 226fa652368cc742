/**
 * Start-up cost: a run that validates and sends records must not load zod (~50 ms of
 * import plus the schemas). The ES module bundle (dist/bundle/examctl.mjs, scripts/build-bundle.mjs:
 * what bin/examctl runs with --debug or under another Node than the build's; the code-cached
 * packs are the same program, its lazily imported parts initialised on their first import) is
 * run with a module hook (module.register) that records every URL it resolves; each chunk of the
 * bundle stands for the modules it holds (esbuild's metafile, dist/bundle/meta.json), named as
 * their dist/ files, so the list says which modules the run loaded.
 */
import { describe, expect, it } from 'vitest';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, startNode } from '../support/cli.js';

const BUNDLE_MAIN = join(ROOT, 'dist/bundle/examctl.mjs');
import { withTempDir } from '../support/temp-dir.js';

const USERS = join(ROOT, 'fixtures/users.csv');
/** A dry run of `file` on a local store in `dir` (none yet), asking nothing. */
const localDryRun = (dir: string, file: string): string[] => [
  'user',
  'sync',
  '--dry-run',
  '--target',
  'local',
  '--store',
  join(dir, 'store'),
  '--file',
  file,
  '--no-input',
];

/** The dist/ modules among `urls` (bin/examctl itself is not one, whatever the checkout's path holds: /work/dist/bin/examctl). */
const distUrls = (urls: string[]): string[] =>
  urls.filter((url) => url.includes('/dist/') && !url.endsWith('/bin/examctl'));

// The hook runs on the loader thread; it appends each resolved URL to the file named by the env.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.STARTUP_MODULES_LOG, result.url + '\\n');
  return result;
}
`;

/** The modules each chunk of the bundle holds, as the URLs of their dist/ files (node_modules as they are). */
function chunkModules(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const asUrl = (input: string) => pathToFileURL(join(ROOT, input.replace(/^src\/(.*)\.ts$/, 'dist/$1.js'))).href;
  return new Map(
    Object.entries(meta.outputs).map(([chunk, output]) => [
      pathToFileURL(join(ROOT, chunk)).href,
      Object.keys(output.inputs).map(asUrl),
    ]),
  );
}

interface Loaded {
  code: number | null;
  stderr: string;
  urls: string[];
}

/** Runs `examctl args` (the ES module bundle, or `main`) in `dir` and returns the module URLs it resolved. */
async function loadedBy(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
  main = BUNDLE_MAIN,
): Promise<Loaded> {
  const hooks = join(dir, 'hooks.mjs');
  const register = join(dir, 'register.mjs');
  const log = join(dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  await writeFile(hooks, HOOKS);
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  await writeFile(log, '');
  const { code, stderr } = await startNode(['--import', pathToFileURL(register).href, main, ...args], dir, {
    STARTUP_MODULES_LOG: log,
    ...env,
  }).done;
  const chunks = chunkModules();
  const resolved = (await readFile(log, 'utf8')).split('\n').filter((u) => u !== '');
  const urls = resolved.flatMap((url) => chunks.get(url) ?? [url]);
  return { code, stderr, urls };
}

const isZod = (url: string) => url.includes('/node_modules/zod/');
const USER_RULES = pathToFileURL(join(ROOT, 'dist/domain/user.js')).href;

function inTempDir(run: (dir: string) => Promise<void>): Promise<void> {
  return withTempDir(run, 'examctl-startup-');
}

describe('a run that validates and sends records does not load zod', () => {
  it('user sync --dry-run on the local target (no store yet)', async () => {
    await inTempDir(async (dir) => {
      const run = await loadedBy(dir, localDryRun(dir, USERS));
      expect(run.code, run.stderr).toBe(0);
      // The hook saw the run's own modules, so an empty zod list means something.
      expect(run.urls.some((u) => u.endsWith('/dist/domain/user.js'))).toBe(true);
      expect(run.urls.filter(isZod)).toEqual([]);
      // The workbook writer loads only when a workbook is written.
      expect(run.urls.filter((u) => /\/dist\/report\/(xlsx-workbook|zip-writer)\.js$/.test(u))).toEqual([]);
      // Nor the HTTP client (undici, ~0.5 MB of script): nothing is sent (context/state-http.ts loads it on its first exchange).
      expect(run.urls.filter((u) => u.includes('/node_modules/undici/'))).toEqual([]);
      // Nor the engine and its store: with none yet there is nothing for them to read (a run on an existing store
      // loads them: below). Only whether one is there (store/current-file.js).
      const engine = run.urls.filter((u) => /\/dist\/engine\/(engine|local-target|store\/file-store)\.js$/.test(u));
      expect(engine).toEqual([]);
      expect(run.urls.some((u) => u.endsWith('/dist/engine/store/current-file.js'))).toBe(true);
    });
  });

  it('user sync --dry-run on a remote target', async () => {
    await inTempDir(async (dir) => {
      const run = await loadedBy(
        dir,
        [
          'user',
          'sync',
          '--dry-run',
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1:9',
          '--file',
          USERS,
          '--no-input',
        ],
        { EXAMCTL_TOKEN: 'startup-test-token' },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.urls.some((u) => u.endsWith('/dist/domain/user.js'))).toBe(true);
      expect(run.urls.filter(isZod)).toEqual([]);
    });
  });

  it("user sync --dry-run of an .xlsx file (the reader knows a template's Columns sheet without the templates module)", async () => {
    await inTempDir(async (dir) => {
      const file = join(ROOT, 'fixtures/xlsx/users-libreoffice.xlsx');
      const run = await loadedBy(dir, localDryRun(dir, file));
      expect(
        run.urls.some((u) => u.endsWith('/dist/input/xlsx-reader.js')),
        run.stderr,
      ).toBe(true);
      expect(run.urls.filter((u) => u.endsWith('/dist/domain/templates.js'))).toEqual([]);
      expect(run.urls.filter(isZod)).toEqual([]);
    });
  });

  it('user sync on an existing local store, dry run and real run (creating the store may load it)', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const base = ['user', 'sync', '--target', 'local', '--store', store, '--file', USERS, '--no-input'];
      const create = await loadedBy(dir, [...base, '--yes']);
      expect(create.code, create.stderr).toBe(0);
      for (const args of [
        [...base, '--dry-run'],
        [...base, '--yes'],
      ]) {
        const run = await loadedBy(dir, args);
        expect(run.code, run.stderr).toBe(0);
        expect(run.urls.some((u) => u.endsWith('/dist/engine/engine.js'))).toBe(true);
        expect(run.urls.filter(isZod)).toEqual([]);
      }
    });
  });

  it('loads zod once a config file exists (it is validated), so the hook does see zod', async () => {
    await inTempDir(async (dir) => {
      await mkdir(join(dir, '.config'), { recursive: true });
      await writeFile(
        join(dir, '.config', 'config.json'),
        JSON.stringify({ version: 1, defaultProfile: 'p', profiles: { p: { baseUrl: 'http://127.0.0.1:9' } } }),
      );
      const run = await loadedBy(
        dir,
        ['user', 'sync', '--dry-run', '--target', 'remote', '--file', USERS, '--no-input'],
        {
          EXAMCTL_TOKEN: 'startup-test-token',
          EXAMCTL_PROFILE: 'p',
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.urls.some(isZod)).toBe(true);
    });
  });
});

describe('checking a base URL does not load the HTTP client', () => {
  const isUndici = (url: string) => url.includes('/node_modules/undici/');
  /** A real run against a port nothing listens on: it makes the pool, then fails to connect. */
  const REFUSED_REMOTE_RUN = [
    ...['user', 'sync', '--target', 'remote', '--base-url', 'http://127.0.0.1:9'],
    ...['--file', USERS, '--no-input', '--yes'],
  ];
  const TOKEN = { EXAMCTL_TOKEN: 'startup-test-token' };

  it('config set-profile checks the URL (refusing plain http to another host) without undici', async () => {
    await inTempDir(async (dir) => {
      const saved = await loadedBy(dir, ['config', 'set-profile', 'p', '--base-url', 'http://127.0.0.1:9']);
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.urls.some((u) => u.endsWith('/dist/api/url-policy.js'))).toBe(true);
      expect(saved.urls.filter(isUndici)).toEqual([]);
      const refused = await loadedBy(dir, ['config', 'set-profile', 'q', '--base-url', 'http://exam.example.com']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/clear text/);
      expect(refused.urls.filter(isUndici)).toEqual([]);
    });
  });

  it('a remote run does load it, so the hook does see undici', async () => {
    await inTempDir(async (dir) => {
      const run = await loadedBy(dir, REFUSED_REMOTE_RUN, TOKEN);
      expect(run.urls.some(isUndici)).toBe(true);
      // Only the parts of undici examctl uses (its pools and errors): not the whole index with
      // fetch's cookies, WebSocket, caches and mocks (scripts/build-bundle.mjs, slimUndici).
      expect(
        run.urls.filter((u) =>
          /\/node_modules\/undici\/(index\.js|lib\/(mock|cache|web\/(cookies|websocket|cache|eventsource))\/)/.test(u),
        ),
      ).toEqual([]);
    });
  });

  it("a remote run through the packs loads undici's HTTP/2 client but not node:http2, which it never connects with", async () => {
    await inTempDir(async (dir) => {
      const run = await builtinsLoaded(dir, REFUSED_REMOTE_RUN, TOKEN);
      // The connection refused: the pool was made, so undici's clients (HTTP/1 and HTTP/2) were loaded.
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/127\.0\.0\.1:9/);
      expect(run.builtins).toContain('NativeModule net');
      expect(run.builtins.filter((name) => /http2/.test(name))).toEqual([]);
    });
  });
});

describe("a CSV run loads no other format's reader (issue 37: start-up before the first request)", () => {
  const otherReaders = (urls: string[]) =>
    urls.filter((u) => /\/dist\/input\/(xlsx-reader|zip-entries|workbook-xml|sheet-rows|json-reader)\.js$/.test(u));

  it('user sync --dry-run on a remote target with a CSV file: neither the xlsx nor the JSON reader', async () => {
    await inTempDir(async (dir) => {
      const run = await loadedBy(
        dir,
        [
          'user',
          'sync',
          '--dry-run',
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1:9',
          '--file',
          USERS,
          '--no-input',
        ],
        {
          EXAMCTL_TOKEN: 'startup-test-token',
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.urls.some((u) => u.endsWith('/dist/input/csv-reader.js'))).toBe(true);
      expect(otherReaders(run.urls)).toEqual([]);
    });
  });

  it('a JSON file does load the JSON reader, so the hook does see it', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'users.json');
      await writeFile(
        file,
        JSON.stringify([{ ExternalId: 'u-1', FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' }]),
      );
      const run = await loadedBy(
        dir,
        [
          'user',
          'sync',
          '--dry-run',
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1:9',
          '--file',
          file,
          '--no-input',
        ],
        {
          EXAMCTL_TOKEN: 'startup-test-token',
        },
      );
      expect(run.urls.some((u) => u.endsWith('/dist/input/json-reader.js'))).toBe(true);
      expect(run.urls.some((u) => u.endsWith('/dist/input/xlsx-reader.js'))).toBe(false);
    });
  });
});

/** A copy of the built package (bin, the bundle, package.json; node_modules linked) to damage in a test. */
async function copyOfBuiltPackage(dir: string): Promise<string> {
  const copy = join(dir, 'package');
  await cp(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
  await cp(join(ROOT, 'dist/bundle'), join(copy, 'dist/bundle'), { recursive: true });
  await cp(join(ROOT, 'package.json'), join(copy, 'package.json'));
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'junction');
  return copy;
}

/** The code-cached packs' manifest (scripts/build-bundle.mjs, buildCodeCachedPacks). */
interface PackManifest {
  node: string;
  packed: Record<string, string>;
  packs: Record<string, { crc32: number; cache: number | null }>;
}
const packManifest = (root = ROOT) =>
  JSON.parse(readFileSync(join(root, 'dist/bundle/code-cache.json'), 'utf8')) as PackManifest;

describe('bin/examctl starts the code-cached packs under the Node that built it, else the ES module bundle', () => {
  const DRY_RUN = ['user', 'sync', '--dry-run', '--file', USERS, '--no-input'];

  it('V8 accepts the cache made at build time for each pack that has one', async () => {
    await inTempDir(async (dir) => {
      const check = join(dir, 'check.cjs');
      const packs = Object.entries(packManifest().packs).filter(([, pack]) => pack.cache !== null);
      expect(packs.map(([file]) => file)).toContain('examctl.mjs');
      await writeFile(
        check,
        `const { readFileSync } = require('node:fs'); const { Script } = require('node:vm');
const dir = ${JSON.stringify(join(ROOT, 'dist/bundle/packed'))};
const rejected = ${JSON.stringify(packs.map(([file]) => file))}.filter((file) => new Script(readFileSync(dir + '/' + file, 'utf8'), { filename: file, cachedData: readFileSync(dir + '/' + file + '.cache') }).cachedDataRejected);
process.stdout.write(JSON.stringify(rejected));`,
      );
      const run = await startNode([check], dir).done;
      expect(run.stdout).toBe('[]');
    });
  });

  it('the packs, not the modules; with --debug the modules (source maps)', async () => {
    await inTempDir(async (dir) => {
      const cached = await loadedBy(dir, [...DRY_RUN, '--store', join(dir, 'store')], {}, BIN);
      expect(cached.code, cached.stderr).toBe(0);
      expect(cached.stderr).toContain('20 items: 20 valid');
      expect(distUrls(cached.urls)).toEqual([]);
      const debug = await loadedBy(dir, [...DRY_RUN, '--store', join(dir, 'store'), '--debug'], {}, BIN);
      // The modules' chunks (each named here by the sources it holds).
      expect(debug.urls).toContain(USER_RULES);
    });
  });

  it('a cache made by another Node, or one V8 refuses, costs speed only: the same run, the same result', async () => {
    await inTempDir(async (dir) => {
      // A copy of the built package whose cache says another Node made it, then whose caches are garbage.
      const copy = await copyOfBuiltPackage(dir);
      const manifest = join(copy, 'dist/bundle/code-cache.json');
      const built = packManifest(copy);
      await writeFile(manifest, JSON.stringify({ ...built, node: 'v0.0.0' }));
      const other = await loadedBy(dir, [...DRY_RUN, '--store', join(dir, 'store')], {}, join(copy, 'bin/examctl'));
      expect(other.stderr).toContain('20 items: 20 valid');
      expect(other.urls.some((url) => url === pathToFileURL(join(copy, 'dist/bundle/examctl.mjs')).href)).toBe(true);

      await writeFile(manifest, JSON.stringify(built));
      for (const [file, pack] of Object.entries(built.packs))
        if (pack.cache !== null)
          await writeFile(join(copy, 'dist/bundle/packed', `${file}.cache`), Buffer.alloc(4096, 7));
      const refused = await loadedBy(dir, [...DRY_RUN, '--store', join(dir, 'store')], {}, join(copy, 'bin/examctl'));
      expect(refused.code, refused.stderr).toBe(0);
      expect(refused.stderr).toContain('20 items: 20 valid');
      expect(distUrls(refused.urls)).toEqual([]);
    });
  });

  it('a pack or cache that is not the pair the build made is never run from the cache (QA: V8 checks only the length)', async () => {
    await inTempDir(async (dir) => {
      const copy = await copyOfBuiltPackage(dir);
      const bin = join(copy, 'bin/examctl');
      const moduleBundle = pathToFileURL(join(copy, 'dist/bundle/examctl.mjs')).href;
      const packed = join(copy, 'dist/bundle/packed');
      const { packs } = packManifest(copy);

      // One byte of each cache flipped (same length): V8 would take it and could abort; each pack is compiled without it.
      for (const [file, pack] of Object.entries(packs)) {
        if (pack.cache === null) continue;
        const bytes = await readFile(join(packed, `${file}.cache`));
        bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
        await writeFile(join(packed, `${file}.cache`), bytes);
      }
      const flipped = await loadedBy(dir, [...DRY_RUN, '--store', join(dir, 'store')], {}, bin);
      expect(flipped.code, flipped.stderr).toBe(0);
      expect(flipped.stderr).toContain('20 items: 20 valid');
      expect(distUrls(flipped.urls)).toEqual([]);

      // A pack edited, its length kept: the cache's old code must not run for it; the pack's own text runs.
      const [helpPack, original] = Object.keys(packs)
        .map((file) => [file, readFileSync(join(packed, file), 'utf8')] as const)
        .find(([, text]) => text.includes('print the examctl version'))!;
      await writeFile(
        join(packed, helpPack),
        original.replace('print the examctl version', 'PRINT THE EXAMCTL VERSION'),
      );
      const help = await startNode([bin, '--help'], dir).done;
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain('PRINT THE EXAMCTL VERSION');
      await writeFile(join(packed, helpPack), original);

      // The entry pack edited or cut short: the module bundle runs, same result.
      const entry = join(packed, 'examctl.mjs');
      const entryText = await readFile(entry);
      await writeFile(entry, entryText.subarray(0, 1000));
      const cut = await loadedBy(dir, [...DRY_RUN, '--store', join(dir, 'store')], {}, bin);
      expect(cut.code, cut.stderr).toBe(0);
      expect(cut.stderr).toContain('20 items: 20 valid');
      expect(cut.urls).toContain(moduleBundle);

      // Nothing left to run: exit 70 naming the damage, never only the build hint, no stack.
      await rm(join(copy, 'dist/bundle/examctl.mjs'));
      const broken = await loadedBy(dir, ['--debug', '--version'], {}, bin);
      expect(broken.code).toBe(70);
      expect(broken.stderr).toMatch(
        /^examctl: internal error: cannot start \(.*\): its installed files are incomplete or damaged; reinstall examctl/,
      );
    });
  });

  /** The packs `examctl args` compiles, in `dir`. */
  async function compiledPacks(dir: string, args: string[]): Promise<string[]> {
    const preload = join(dir, 'compiled.cjs');
    await writeFile(
      preload,
      `const vm = require('node:vm'); const Script = vm.Script; const files = [];
vm.Script = class extends Script { constructor(text, options) { super(text, options); files.push(require('node:path').basename(options.filename)); } };
process.on('exit', () => require('node:fs').writeSync(2, '\\nCOMPILED ' + JSON.stringify(files) + '\\n'));\n`,
    );
    const { code, stderr } = await startNode(['--require', preload, BIN, ...args], dir).done;
    expect(code, stderr).toBe(0);
    return JSON.parse(/\nCOMPILED (.*)\n/.exec(stderr)![1]!) as string[];
  }

  it("--version alone compiles no pack and loads no node:crypto; its line is the program's (--debug runs the program)", async () => {
    await inTempDir(async (dir) => {
      for (const flag of ['--version', '-V']) expect(await compiledPacks(dir, [flag])).toEqual([]);
      const bare = await builtinsLoaded(dir, ['--version']);
      expect(bare.code, bare.stderr).toBe(0);
      expect(bare.builtins.filter((name) => /^NativeModule (crypto|vm)$/.test(name))).toEqual([]);
      const program = await startNode([BIN, '--version', '--debug'], dir).done;
      expect(program.code, program.stderr).toBe(0);
      expect(bare.stdout).toBe(program.stdout);
    });
  });

  it('every pack is ASCII: V8 holds a script with one other character as two-byte text (twice the bytes to scan)', () => {
    const packs = [...new Set(Object.values(packManifest().packed))];
    const wide = packs.filter((file) =>
      /[^\x00-\x7f]/.test(readFileSync(join(ROOT, 'dist/bundle/packed', file), 'utf8')),
    );
    expect(packs.length).toBeGreaterThan(1);
    expect(wide).toEqual([]);
  });

  it("no pack names a declared function what it is named already (keepNames' calls dropped at build)", async () => {
    // @ts-expect-error: a build script, not typed
    const { withoutSameNames } = await import('../../scripts/build-bundle.mjs');
    const packs = [...new Set(Object.values(packManifest().packed))];
    const texts = packs.map((file) => readFileSync(join(ROOT, 'dist/bundle/packed', file), 'utf8'));
    expect(texts.filter((text) => withoutSameNames(text) !== text)).toEqual([]);
    // A renamed function's call stays; a declaration's own name, and a function bound to its own name, are dropped.
    const code = 'function f(){}__name(f,"f");function f2(){}(0,c.__name)(f2,"f");var g=__name(()=>1,"g");';
    expect(withoutSameNames(code)).toBe('function f(){}function f2(){}(0,c.__name)(f2,"f");var g=(()=>1);');
    // The language names a bound one (NamedEvaluation); a member, another name or a ternary's branch keeps its call.
    const bound =
      'let a=(0,m.__name)(e=>{x("),",`${y({z:1})}`,/[)}]/.test(e))},"a"),o={b:__name(async(v)=>v/2,"b"),c:__name(()=>1,"d")};' +
      'o.e=__name(()=>1,"e");let f=q?g:__name(()=>1,"g");';
    const kept = withoutSameNames(bound);
    expect(kept).toBe(
      'let a=(e=>{x("),",`${y({z:1})}`,/[)}]/.test(e))}),o={b:(async(v)=>v/2),c:__name(()=>1,"d")};' +
        'o.e=__name(()=>1,"e");let f=q?g:__name(()=>1,"g");',
    );
    const names = new Function('m', '__name', 'q', 'g', `${kept.replace(/let f=.*/, '')}return [a.name,o.b.name];`);
    expect(names({ __name: (f: unknown) => f }, (f: unknown) => f, true, 1)).toEqual(['a', 'b']);
    // A class its head names loses its static block; a renamed one, or one with a static `name`, keeps it.
    const classes =
      'var A=class extends (0,m.B){static{(0,m.__name)(this,"A")}x(){return /}/.test("{")}};class C{a;static{__name(this,"C")}}' +
      'var D2=class{static{__name(this,"D")}};class E{static name(){}static{__name(this,"E")}}';
    expect(withoutSameNames(classes)).toBe(
      'var A=class extends (0,m.B){x(){return /}/.test("{")}};class C{a;}' +
        'var D2=class{static{__name(this,"D")}};class E{static name(){}static{__name(this,"E")}}',
    );
    expect(texts.join('').match(/static\{[^}]{0,60}__name\)?\(this,/g)?.length ?? 0).toBeLessThan(30);
    expect(texts.join('').match(/__name\)\(/g)?.length).toBeGreaterThan(100);
  });

  it('a large chunk is a pack of its own: a dry run compiles no pack holding zod, which it never runs', async () => {
    await inTempDir(async (dir) => {
      const { packed } = packManifest();
      const holds = (file: string) =>
        readFileSync(join(ROOT, 'dist/bundle/packed', file), 'utf8').includes('"$ZodType"');
      const zod = [...new Set(Object.values(packed))].filter(holds); // zod's core (its schemas' class names)
      expect(zod).toHaveLength(1);
      expect(Object.values(packed).filter((file) => file === zod[0])).toHaveLength(1);
      const compiled = await compiledPacks(dir, [...DRY_RUN, '--store', join(dir, 'store')]);
      expect(compiled).toContain(packed['examctl.mjs']);
      expect(compiled.filter(holds)).toEqual([]);
    });
  });
});

describe('bin/examctl starts the code-cached packs, not the ES module bundle', () => {
  // An ES module entry point costs every start its loader (~5-10 ms, bench/README.md, "Session
  // 41: first-request"); bin/examctl is CommonJS (bin/package.json) and runs the code-cached
  // packs through node:vm. What a user gets, on every Node: the run works with the module bundle
  // gone (so it never ran), and V8 took the cache (vm.Script's cachedDataRejected, a public API),
  // whatever modules that Node loads inside.
  it('a run through bin/examctl uses the packs and their caches: the same result with the ES module bundle removed', async () => {
    await inTempDir(async (dir) => {
      const copy = await copyOfBuiltPackage(dir);
      const { readdir } = await import('node:fs/promises');
      for (const name of await readdir(join(copy, 'dist/bundle')))
        if (/\.mjs(\.map)?$/.test(name)) await rm(join(copy, 'dist/bundle', name));
      const preload = join(dir, 'loaded.cjs');
      await writeFile(
        preload,
        `const vm = require('node:vm'); const run = vm.Script.prototype.runInThisContext; let cached = false;
vm.Script.prototype.runInThisContext = function (...args) { cached ||= this.cachedDataRejected === false; return run.apply(this, args); };
process.on('exit', () => require('node:fs').writeSync(2, '\\nLOADED ' + JSON.stringify({ cached }) + '\\n'));\n`,
      );
      const { code, stderr } = await startNode(
        [
          '--require',
          preload,
          join(copy, 'bin/examctl'),
          'user',
          'sync',
          '--dry-run',
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1:9',
          '--file',
          USERS,
          '--no-input',
        ],
        dir,
        { EXAMCTL_TOKEN: 'startup-test-token' },
      ).done;
      expect(code, stderr).toBe(0);
      expect(stderr).toContain('20 items: 20 valid');
      const { cached } = JSON.parse(/\nLOADED (.*)\n/.exec(stderr)![1]!) as { cached: boolean };
      expect(cached).toBe(true);
    });
  });
});

describe('--version and --help load only what they print (issue 62: start-up within 1.5x of node -e 0)', () => {
  const isCommander = (url: string) => url.includes('/node_modules/commander/');

  it('--version alone loads neither commander nor the command tree; --help loads the tree but no behaviour', async () => {
    await inTempDir(async (dir) => {
      const version = await loadedBy(dir, ['--version']);
      expect(version.code, version.stderr).toBe(0);
      expect(version.urls.some((u) => u.endsWith('/dist/cli/main.js'))).toBe(true);
      expect(
        version.urls.filter((u) => isCommander(u) || /\/dist\/cli\/(run-cli|command-tree|program)\.js$/.test(u)),
      ).toEqual([]);
      const help = await loadedBy(dir, ['--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.urls.some(isCommander)).toBe(true);
      // A behaviour is commands/<command>.js beside its declaration commands/<command>.options.js.
      const declarations = help.urls.filter((u) => u.endsWith('.options.js'));
      expect(declarations.some((u) => u.endsWith('/dist/cli/commands/user-sync.options.js'))).toBe(true);
      expect(help.urls.filter((u) => declarations.includes(u.replace(/\.js$/, '.options.js')))).toEqual([]);
    });
  });
});

/** The installed packages (node_modules/NAME) a run through bin/examctl requires: Node's CommonJS cache at exit. */
/** bin/examctl run with `args`: its exit, stderr and Node's modules loaded (process.moduleLoadList at exit). */
async function builtinsLoaded(dir: string, args: string[], env: Record<string, string> = {}) {
  const preload = join(dir, 'builtins.cjs');
  await writeFile(
    preload,
    `process.on('exit', () => require('node:fs').writeSync(2, '\\nBUILTINS ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n`,
  );
  const run = await startNode(['--require', preload, BIN, ...args], dir, env).done;
  // No list is a failure, never an empty one: every assertion on it could then pass.
  return { ...run, builtins: JSON.parse(/\nBUILTINS (.*)\n/.exec(run.stderr)![1]!) as string[] };
}

async function packagesRequired(dir: string, args: string[]): Promise<{ code: number | null; names: string[] }> {
  const preload = join(dir, 'required.cjs');
  await writeFile(
    preload,
    `process.on('exit', () => require('node:fs').writeSync(2, '\\nREQUIRED ' + JSON.stringify(Object.keys(require('node:module')._cache)) + '\\n'));\n`,
  );
  const { code, stderr } = await startNode(['--require', preload, BIN, ...args], dir).done;
  const files = JSON.parse(/\nREQUIRED (.*)\n/.exec(stderr)?.[1] ?? '[]') as string[];
  const names = files.flatMap((file) => /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)?.[1] ?? []);
  return { code, names: [...new Set(names)].sort() };
}

describe('the installed packages load when a record needs them', () => {
  it('a CSV file with no quote is read without csv-parse; a quoted cell loads it', async () => {
    await inTempDir(async (dir) => {
      const plain = await packagesRequired(dir, localDryRun(dir, USERS));
      expect(plain.code).toBe(0);
      expect(plain.names).not.toContain('csv-parse');
      const quoted = join(dir, 'quoted.csv');
      const [header, first] = readFileSync(USERS, 'utf8').split('\n');
      await writeFile(quoted, `${header}\n${first!.replace(/^([^,]*),([^,]*),/, '$1,"$2",')}\n`);
      const run = await packagesRequired(dir, localDryRun(dir, quoted));
      expect(run.code).toBe(0);
      expect(run.names).toContain('csv-parse');
    });
  });

  it("a dry run loads neither node:module nor node:timers/promises: each on its first use (csv-parse's createRequire, a retry's sleep)", async () => {
    await inTempDir(async (dir) => {
      const plain = await builtinsLoaded(dir, localDryRun(dir, USERS));
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.builtins.filter((name) => /^NativeModule (module|timers\/promises)$/.test(name))).toEqual([]);
      const quoted = join(dir, 'quoted.csv');
      const [header, first] = readFileSync(USERS, 'utf8').split('\n');
      await writeFile(quoted, `${header}\n${first!.replace(/^([^,]*),([^,]*),/, '$1,"$2",')}\n`);
      const run = await builtinsLoaded(dir, localDryRun(dir, quoted));
      expect(run.code, run.stderr).toBe(0);
      expect(run.builtins).toContain('NativeModule module');
    });
  });

  it('ipaddr.js loads on the first IPv6 address to check, not for a file without one', async () => {
    await inTempDir(async (dir) => {
      const plain = await packagesRequired(dir, localDryRun(dir, USERS));
      expect(plain.code).toBe(0);
      expect(plain.names).not.toContain('ipaddr.js');
      const file = join(dir, 'ipv6.csv');
      await writeFile(
        file,
        'ExternalId,FirstName,LastName,Email,Role,AllowedIpAddresses\nstu-1,A,B,a@b.example.test,Candidate,0::1\n',
      );
      const run = await packagesRequired(dir, localDryRun(dir, file));
      expect(run.code).toBe(0);
      expect(run.names).toContain('ipaddr.js');
    });
  });
});
