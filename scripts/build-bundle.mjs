// The CLI that bin/examctl runs: src/cli/main.ts and everything it imports (examctl's own modules
// and its dependencies) bundled by esbuild into dist/bundle/ (issue 37: start-up before the first
// request), twice: examctl.mjs with one chunk per lazily imported part (a command's behaviour,
// the engine, undici, prompts...), so a run loads a few dozen files instead of ~300 modules; and
// packed/, the same program as a few scripts (packChunks), each with V8's code cache
// (buildCodeCachedPacks), which the bin prefers under the Node that built it. `npm run build` runs this after tsc (dist/'s
// modules stay: tests, benches and scripts import them). docs/architecture.md, "Build and package".
//
// dist/bundle/meta.json (esbuild's metafile: which sources each chunk holds) is for the tests that
// check what a command loads (test/e2e/startup-modules.test.ts); it is not packed.
//
// Run: node scripts/build-bundle.mjs
import { build, transform } from 'esbuild';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { constants as http2Constants } from 'node:http2';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
export const BUNDLE_DIR = join(dist, 'bundle');
/** The files examctl reads at run time beside its code: the demo world, the examples `template --example` prints. */
export const BUILT_IN = ['world.json', 'users.csv', 'sittings.csv', 'collection.json'].map(
  (name) => `fixtures/${name}`,
);

const posix = (path) => path.split(sep).join('/');

/**
 * `import.meta.url` of a module of src/ means the place of its compiled file in dist/ (src/version.ts
 * reads `../package.json` from it, src/engine/local-target.ts `../../fixtures/world.json`): in the
 * bundle, every such use is made the URL of that dist/ file, computed from the chunk's own URL, so
 * the relative paths of the sources hold wherever the package is installed.
 */
export const distImportMetaUrl = (format) => ({
  name: 'dist-import-meta-url',
  setup(esbuild) {
    // The CommonJS script has no import.meta: its own URL is made from __filename. The one-file
    // executable (scripts/build-release.mjs: formats 'sea', its script, and 'sea-esm', its worker,
    // whose own URL is a data: URL) has no package around it: its package root is the
    // executable's own path, under which src/system/shipped-file.ts finds its assets.
    const seaRoot = (url, join) => `${url}(${join}(process.execPath, 'dist', 'bundle', 'examctl.cjs'))`;
    const here = {
      esm: 'import.meta.url',
      cjs: "require('node:url').pathToFileURL(__filename)",
      sea: seaRoot("require('node:url').pathToFileURL", "require('node:path').join"),
      'sea-esm': seaRoot('__examctlUrl', '__examctlJoin'),
    }[format];
    // import.meta.dirname the same way, a path: no URL made (a dry run parsed none but version.ts's, ~1 % of it).
    const hereDir = {
      esm: 'import.meta.dirname',
      cjs: '__dirname',
      sea: "(process.execPath + '/dist/bundle')",
      'sea-esm': "(process.execPath + '/dist/bundle')",
    }[format];
    const script = format === 'cjs' || format === 'sea';
    esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      if (!args.path.startsWith(src + sep)) return undefined;
      // The script's import() of one of Node's modules is a require (V8 gives a function
      // restored from the code cache no way to import): the same named exports, loaded at once.
      const lazyBuiltins = script && /\bimport\((['"])node:/.test(text);
      if (!text.includes('import.meta') && !lazyBuiltins) return undefined;
      if (lazyBuiltins) text = text.replace(/\bimport\((['"])(node:[^'"]+)\1\)/g, 'Promise.resolve(require($1$2$1))');
      // In the one-file executable nothing is installed beside it: a package src/ loads lazily
      // through createRequire (url-policy.ts: ipaddr.js) is bundled, still loaded on first use.
      if (format.startsWith('sea'))
        text = text.replace(/\bcreateRequire\(import\.meta\.url\)\((['"][^'"]+['"])\)/g, 'require($1)');
      const compiled = join(dist, relative(src, args.path)).replace(/\.ts$/, '.js');
      const url = `new URL(${JSON.stringify(posix(relative(BUNDLE_DIR, compiled)))}, ${here}).href`;
      text = text.replaceAll('import.meta.url', url);
      const dir = `(${hereDir} + ${JSON.stringify(`/${posix(relative(BUNDLE_DIR, dirname(compiled)))}`)})`;
      text = text.replaceAll('import.meta.dirname', dir);
      // esbuild would make any other import.meta an empty object in the script: no script then.
      if (script && text.includes('import.meta'))
        throw new Error(`${relative(root, args.path)} uses import.meta beyond .url and .dirname`);
      return { contents: text, loader: 'ts' };
    });
  },
});

/** The value names src/ imports from `pkg` (`import { A, type B, C as D } from 'pkg'` -> A, C); undefined when it takes the whole package (a namespace or default import). */
function namesImportedFrom(pkg) {
  const names = new Set();
  for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const match of text.matchAll(/import\s+(type\s+)?([^'";]*?)\s+from\s+['"]([^'"]+)['"]/g)) {
      if (match[3] !== pkg || match[1] !== undefined) continue;
      const braces = /^\{([^}]*)\}$/.exec(match[2].trim());
      if (braces === null) return undefined;
      for (const part of braces[1]
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '' && !item.startsWith('type ')))
        names.add(part.split(/\s+as\s+/)[0]);
    }
    if (new RegExp(`(import|require)\\(\\s*['"]${pkg}['"]`).test(text)) return undefined;
  }
  return names;
}

/**
 * undici's index.js loads its whole lib at import (fetch, WebSocket, cookies, which load Node's own
 * copy of undici through globalThis.Headers, caches, mocks: ~30 ms of a one-user run). In the
 * bundle, `undici` is an entry holding only what src/ imports from it: for each name, the lib
 * module index.js takes it from (its `const Name = require('./lib/...')` or
 * `const { Name } = require(...)` line), proven at build time to be the very object
 * `require('undici')[Name]` is, plus index.js's `Object.assign(X.prototype, Y)` statements (the
 * request API of every dispatcher). A name that cannot be proven so keeps the whole index (with
 * a warning): the bundle is then slower, never different.
 */
function slimUndici() {
  const require = createRequire(join(root, 'package.json'));
  const indexPath = require.resolve('undici');
  const libOf = (binding) => {
    const index = readFileSync(indexPath, 'utf8');
    const whole = new RegExp(`^(?:const|let|var)\\s+${binding}\\s*=\\s*require\\('(\\./lib/[^']+)'\\)\\s*$`, 'm').exec(
      index,
    );
    if (whole !== null) return { file: whole[1] };
    const part = new RegExp(
      `^const\\s*\\{[^}]*\\b${binding}\\b[^}]*\\}\\s*=\\s*require\\('(\\./lib/[^']+)'\\)\\s*$`,
      'm',
    ).exec(index);
    return part === null ? undefined : { file: part[1], property: binding };
  };
  const names = namesImportedFrom('undici');
  if (names === undefined) return { reason: 'src/ imports undici as a whole' };
  const undici = require('undici');
  const lines = [];
  const exported = [];
  const load = (at) =>
    `require(${JSON.stringify(join(dirname(indexPath), at.file))})${at.property === undefined ? '' : `.${at.property}`}`;
  for (const name of names) {
    const at = libOf(name);
    if (at === undefined) return { reason: `no lib module found for undici's ${name}` };
    const value = require(join(dirname(indexPath), at.file));
    if ((at.property === undefined ? value : value[at.property]) !== undici[name])
      return { reason: `undici's ${name} is not ${at.file}` };
    exported.push(`${JSON.stringify(name)}: ${load(at)}`);
  }
  for (const [, target, source] of readFileSync(indexPath, 'utf8').matchAll(
    /^Object\.assign\((\w+)\.prototype,\s*(\w+)\)\s*$/gm,
  )) {
    const [to, from] = [libOf(target), libOf(source)];
    if (to === undefined || from === undefined)
      return { reason: `cannot place undici's Object.assign(${target}.prototype, ${source})` };
    lines.push(`Object.assign(${load(to)}.prototype, ${load(from)});`);
  }
  return {
    contents: `${lines.join('\n')}\nmodule.exports = { ${exported.join(', ')} };\n`,
    resolveDir: dirname(indexPath),
  };
}

export const undiciEntry = {
  name: 'undici-entry',
  setup(esbuild) {
    const slim = slimUndici();
    if (slim.contents === undefined) {
      console.warn(`build-bundle: undici's whole index is bundled (${slim.reason})`);
      return;
    }
    esbuild.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.startsWith(src + sep) ? { path: 'undici', namespace: 'undici-entry' } : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'undici-entry' }, () => ({
      contents: slim.contents,
      resolveDir: slim.resolveDir,
      loader: 'js',
    }));
  },
};

/**
 * commander requires node:child_process at load for one use (spawning an executable subcommand,
 * which examctl has none of); that module and what it loads (net, dgram...) are ~3 ms of every
 * start. In the bundle it is required on that use.
 */
export const commanderLazySpawn = {
  name: 'commander-lazy-spawn',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!text.includes(eager))
        throw new Error(`commander's ${args.path} no longer requires node:child_process as build-bundle.mjs expects`);
      return {
        contents: text.replace(
          eager,
          "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
        ),
        loader: 'js',
      };
    });
  },
};

/** The bundled packages (from the metafile) with their licence texts: dist/bundle/THIRD-PARTY-NOTICES.md. */
export function thirdPartyNotices(metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(posix(input));
    if (match === null) continue;
    const dir = join(root, match[1]);
    if (packages.has(dir)) continue;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const licenceFile = readdirSync(dir).find((name) => /^(licen[cs]e|copying)([-._]|$)/i.test(name));
    if (licenceFile === undefined)
      throw new Error(
        `${match[2]} is bundled but has no licence file: write its notice by hand or leave it out of the bundle`,
      );
    packages.set(dir, {
      name: manifest.name,
      version: manifest.version,
      license: manifest.license,
      text: readFileSync(join(dir, licenceFile), 'utf8').trim(),
    });
  }
  const sorted = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
  return [
    '# Third-party notices',
    '',
    'The examctl bundle (dist/bundle/) includes code of these packages, under these licences.',
    '',
    ...sorted.flatMap((pkg) => [`## ${pkg.name} ${pkg.version} (${pkg.license})`, '', '```', pkg.text, '```', '']),
  ].join('\n');
}

/**
 * The packages of package.json's `dependencies`: installed with examctl and loaded from there at
 * run time, never bundled (csv-parse is the CSV parser in production, ipaddr.js the address
 * rules). What the bundle holds are devDependencies. One rule, so a package is either installed
 * or bundled, never both: test/package/package-install.test.ts runs the tarball beside these alone.
 */
export const RUNTIME_DEPENDENCIES = Object.keys(
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {},
);

/** What the bundles share: one entry, the bundled libraries inside, names kept (error names, --debug stacks). */
export const COMMON = {
  absWorkingDir: root,
  entryPoints: { examctl: join(src, 'cli/main.ts') },
  external: RUNTIME_DEPENDENCIES.flatMap((name) => [name, `${name}/*`]),
  outdir: BUNDLE_DIR,
  bundle: true,
  platform: 'node',
  target: 'node20.18',
  // Less text for V8 to scan at each start (~15 ms of a one-user run, measured); names are
  // kept, and the source maps give --debug's stacks src/ lines.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * esbuild's split (an ES module chunk per lazily imported part: `outputFiles` and `metafile` of a
 * build with splitting) made CommonJS scripts, packed: the entry with what it imports (all
 * `--version` needs), then each lazily imported chunk with what it imports and no earlier pack
 * holds (run-cli's: the command tree, all `--help` needs; then each command's behaviour...), a
 * chunk of OWN_PACK_BYTES or more alone (zod: a dry run compiles no pack that holds it). Each
 * pack is one script whose value is its chunks' module functions, compiled on the first require
 * of one of them with one code cache: a start compiles a few scripts, not dozens, and only what it
 * loads. `files`: each pack's name (its first chunk's) and text; `packed`: the pack of each chunk.
 * The npm install's (bin/examctl) and the one-file executable's (build-release.mjs) program.
 */
/**
 * A chunk of this size or more is packed alone: its bytes cost a start that does not need it more
 * than a script of its own costs one that does (a pack's files read, hashed and compiled: ~0.2 ms).
 */
const OWN_PACK_BYTES = 64 * 1024;
const TO_COMMON_JS = 'module.exports=__toCommonJS(stdin_exports);';
const AS_COMMON_JS = 'module.exports=__defProp(stdin_exports,"__esModule",{value:true});';

/**
 * Node's modules examctl uses only on some paths, each loaded with what it requires when first used: a
 * three-user dry run reads neither (`createRequire` for csv-parse and ipaddr.js, a retry's sleep), and
 * requiring them cost it ~0.4-0.6 ms each (bench/README.md, "Issue 82 item 4: caches made by the start-ups").
 */
const LAZY_BUILTINS = ['node:module', 'node:timers/promises'];
/** An installed package's or a LAZY_BUILTINS module's `require` at a chunk's top (esbuild's, for an `import` of it). */
const PACKAGE_NAMES = [...RUNTIME_DEPENDENCIES, ...LAZY_BUILTINS].map((name) => name.replaceAll('.', '\\.')).join('|');
const PACKAGE_REQUIRE = new RegExp(
  `var (import_[\\w$]+)=((?:__toESM\\()?require\\("(?:${PACKAGE_NAMES})"\\)\\)?)`,
  'g',
);
const LAZY_PACKAGE = 'var __lazyPackage=(load,loaded)=>new Proxy({},{get:(_,key)=>(loaded??=load())[key]});';

/**
 * Each installed package (ipaddr.js, imported by src/domain/text-rules.ts) and each of LAZY_BUILTINS
 * required on the first use of one of its exports, not when its chunk loads: a run that checks no IPv6
 * address never resolves nor compiles it (installed packages have no code cache).
 */
function lazyPackages(code) {
  const lazy = code.replace(PACKAGE_REQUIRE, 'var $1=__lazyPackage(()=>$2)');
  return lazy === code ? code : `${LAZY_PACKAGE}${lazy}`;
}

/**
 * undici's HTTP/2 client: its chunk required node:http2 as it loaded, for ten constants and `connect`, which
 * undici calls only on a connection that negotiated h2, and examctl never offers it (undici's `allowH2` is off).
 * Loading node:http2 cost every remote run's start ~7-24M instructions (~5 ms; bench/README.md, "seventeenth
 * session, hcpu3"). The constants are written in as the building Node has them; node:http2 is required on the
 * first `connect`.
 */
const HTTP2_REQUIRE =
  /try\{http2=((?:\(0,[\w$.]+\)|[\w$]+)\("node:http2"\))\}catch\{http2=\{constants:\{\}\}\}var\{constants:\{([\w$,]+)\}\}=http2;/;

function http2OnUse(code) {
  if (!code.includes('"node:http2"')) return code;
  const match = HTTP2_REQUIRE.exec(code);
  if (match === null) throw new Error('a chunk requires node:http2 otherwise than undici 7 did: see http2OnUse');
  const [whole, load, names] = match;
  const constants = Object.fromEntries(names.split(',').map((name) => [name, http2Constants[name]]));
  // A function, not a string: a `$` in the chunk's names is not a replacement pattern.
  return code.replace(
    whole,
    () =>
      `http2={constants:${JSON.stringify(constants)},connect:(...args)=>${load}.connect(...args)};var{constants:{${names}}}=http2;`,
  );
}

/** keepNames' call after a function declaration, naming the function what it is named already. */
const SAME_NAME = /(?:\(0,[\w$]+\.__name\)|__name)\(([\w$]+),"\1"\);/g;
const FUNCTION_DECLARATION = /function\s*\*?\s*([\w$]+)\s*\(/g;

/**
 * A chunk without keepNames' calls that change nothing: `function f(){}` is named `f` already, and each
 * call redefined `name` (a new map for the function) as the chunk loaded: ~1,060 of the ~1,490 calls a
 * three-user dry run made. A call for a renamed function (`__name(f2,"f")`) or a class stays.
 */
export function withoutSameNames(code) {
  const declared = new Set(Array.from(code.matchAll(FUNCTION_DECLARATION), (match) => match[1]));
  return withoutClassNames(
    withoutBindingNames(code.replace(SAME_NAME, (call, name) => (declared.has(name) ? '' : call))),
  );
}

/** A class named in its head: `class X` (a declaration or expression) or `X=class` (a binding). */
const CLASS_HEAD = /(?<=[^\w$.])(?:class\s+([\w$]+)|([\w$]+)=class)(?![\w$])/g;

/**
 * A chunk without keepNames' static block in a class its head names already (`class X{static{__name(this,"X")}}`,
 * `X=class{...}`): one `defineProperty` and one static initializer less each time the class is made (most
 * as their chunk loads). A class with a static `name` of its own, or whose body's end is not found, keeps it.
 */
function withoutClassNames(code) {
  const cuts = [];
  for (const match of code.matchAll(CLASS_HEAD)) {
    const name = match[1] ?? match[2];
    // The body's brace: after the head and its `extends` expression, at their depth.
    let open = match.index + match[0].length;
    for (let depth = 0; open < code.length && !(depth === 0 && code[open] === '{'); open++) {
      if (code[open] === '(') depth++;
      else if (code[open] === ')') depth--;
      else if (/[;,=]/.test(code[open]) && depth === 0) break;
    }
    if (code[open] !== '{') continue;
    const end = argumentEnd(code, open + 1, '}');
    if (end === -1) continue;
    const body = code.slice(open + 1, end);
    const block = new RegExp(
      `static\\{(?:\\(0,[\\w$]+\\.__name\\)|__name)\\(this,"${name.replaceAll('$', '\\$')}"\\)\\}`,
      'g',
    );
    const found = Array.from(body.matchAll(block));
    if (found.length !== 1 || /static\s*(?:get\s*|set\s*|async\s*)?["']?name\b/.test(body)) continue;
    cuts.push([open + 1 + found[0].index, open + 1 + found[0].index + found[0][0].length]);
  }
  cuts.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, stop] of cuts) {
    if (start < from) continue;
    out += code.slice(from, start);
    from = stop;
  }
  return out + code.slice(from);
}

/** keepNames' call around an anonymous function bound to a name: `x=__name(() => {}, "x")`, `{x:__name(...)}`. */
const BOUND_NAME =
  /(?<=[^\w$.])([\w$]+)([=:])((?:\(0,[\w$]+\.__name\)|__name)\()(?=(?:async\s*)?(?:\(|[\w$]+=>|function\s*\())/g;

/**
 * A chunk without keepNames' calls around a function expression or arrow that a binding, a default or
 * a property of its own name holds: the language names it so already (NamedEvaluation). `x=__name(f,"x")`
 * becomes `x=(f)`. Such a call ran each time its closure was made: undici's `writeH1` made one per request
 * (`abort`, ~2 us each, bench/README.md). Only a call whose first argument's end is found, followed by
 * the same name, is changed; a computed or quoted key, a member or any other name keeps its call.
 */
function withoutBindingNames(code) {
  let out = '';
  let from = 0;
  for (const match of code.matchAll(BOUND_NAME)) {
    const [, name, sign, call] = match;
    // A binding, an assignment or a default (`(a,x=`) after one of these; a property only after `{` or `,`.
    if (match.index < from || !(sign === '=' ? '(,{;} \n' : '{,').includes(code[match.index - 1])) continue;
    const open = match.index + name.length + 1;
    const end = argumentEnd(code, open + call.length);
    const tail = `,"${name}")`;
    if (end === -1 || !code.startsWith(tail, end)) continue;
    // Calls nested in this function are dropped too (the scan skips past it).
    out += `${code.slice(from, open)}(${withoutBindingNames(code.slice(open + call.length, end))})`;
    from = end + tail.length;
  }
  return out + code.slice(from);
}

const REGEX_AFTER = /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|void|delete|throw|yield|await)$/;

/**
 * Where the call argument starting at `start` ends (its top-level comma or closing parenthesis), or with
 * `close` '}' the block's closing brace, skipping strings, templates, comments and regular expressions;
 * -1 when the scan cannot tell.
 */
function argumentEnd(code, start, close = ')') {
  const stack = [];
  let last = '(';
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === '"' || c === "'") {
      i = stringEnd(code, i, c);
      if (i === -1) return -1;
    } else if (c === '`') {
      stack.push('`');
      i = templatePart(code, i + 1, stack);
      if (i === -1) return -1;
    } else if (c === '/' && code[i + 1] === '*') {
      i = code.indexOf('*/', i + 2);
      if (i === -1) return -1;
      i += 1;
      continue;
    } else if (c === '/' && code[i + 1] === '/') {
      i = code.indexOf('\n', i);
      if (i === -1) return -1;
      continue;
    } else if (
      c === '/' &&
      ('(,=:[!&|?{};+-*%<>~^'.includes(last) || REGEX_AFTER.test(code.slice(Math.max(0, i - 12), i).trimEnd()))
    ) {
      i = regexEnd(code, i);
      if (i === -1) return -1;
    } else if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.length === 0) return c === close ? i : -1;
      const top = stack.pop();
      if (top === '${') {
        if (c !== '}') return -1;
        i = templatePart(code, i + 1, stack);
        if (i === -1) return -1;
      } else if (top !== { ')': '(', ']': '[', '}': '{' }[c]) return -1;
    } else if (c === ',' && stack.length === 0 && close === ')') return i;
    if (!/\s/.test(c)) last = code[i];
  }
  return -1;
}

function stringEnd(code, i, quote) {
  for (let j = i + 1; j < code.length; j++) {
    if (code[j] === '\\') j++;
    else if (code[j] === quote) return j;
    else if (code[j] === '\n') return -1;
  }
  return -1;
}

/** From inside a template: the index of its closing backtick (popped), or of a `${` (pushed as such). */
function templatePart(code, i, stack) {
  for (let j = i; j < code.length; j++) {
    if (code[j] === '\\') j++;
    else if (code[j] === '`') {
      stack.pop();
      return j;
    } else if (code[j] === '$' && code[j + 1] === '{') {
      stack.push('${');
      return j + 1;
    }
  }
  return -1;
}

function regexEnd(code, i) {
  let inClass = false;
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j];
    if (c === '\\') j++;
    else if (c === '\n') return -1;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '/') {
      while (/[\w$]/.test(code[j + 1] ?? '')) j++;
      return j;
    }
  }
  return -1;
}

async function packChunks(outputFiles, metafile) {
  // Each ES module chunk made a CommonJS script: its imports become require()s of the other
  // chunks (import() too: a code-cached script cannot import), which PACK_LOADER resolves.
  const codes = new Map();
  for (const chunk of outputFiles.sort((a, b) => a.path.localeCompare(b.path))) {
    const { code } = await transform(chunk.text, {
      format: 'cjs',
      platform: 'node',
      target: COMMON.target,
      supported: { 'dynamic-import': false },
      minifyWhitespace: true,
      // No keepNames here: the chunk's own __name calls (the split's, COMMON.keepNames) already
      // name every function and class, and run after any this pass would add.
      logLevel: 'warning',
    });
    const left = /[^\w$.]import\(\s*[^)]{0,40}/.exec(code);
    if (left !== null)
      throw new Error(`${basename(chunk.path)} would import() (${left[0]}), which a code-cached script cannot`);
    // The chunk's exports object is its module.exports (marked as an ES module's, as esbuild's
    // copy would be), not a copy of it with a getter per export: one getter less on every use
    // of an import, and no copy made per chunk at load.
    codes.set(
      basename(chunk.path),
      http2OnUse(lazyPackages(withoutSameNames(code.replace(TO_COMMON_JS, AS_COMMON_JS)))),
    );
  }
  const imports = new Map(
    Object.entries(metafile.outputs).map(([path, output]) => [
      basename(path),
      output.imports.filter((item) => !item.external),
    ]),
  );
  const imported = (name, kind) =>
    imports
      .get(name)
      .filter((item) => item.kind === kind)
      .map((item) => basename(item.path));
  const packed = {};
  const entries = ['examctl.mjs'];
  const closure = (name, pack = name) => {
    if (packed[name] !== undefined) return;
    // A large chunk is a pack of its own (zod, for the commands that read plans and schemas): a
    // run that loads a pack for the chunks it shares with it never reads, hashes or compiles it.
    if (name !== pack && codes.get(name).length >= OWN_PACK_BYTES) {
      if (!entries.includes(name)) entries.push(name);
      return;
    }
    packed[name] = pack;
    for (const next of imported(name, 'import-statement')) closure(next, pack);
  };
  // Breadth first from the entry: the packs a start needs first take the chunks they share.
  for (let i = 0; i < entries.length; i++) {
    closure(entries[i]);
    const members = Object.keys(packed).filter((name) => packed[name] === entries[i]);
    for (const next of members.flatMap((name) => imported(name, 'dynamic-import')))
      if (packed[next] === undefined && !entries.includes(next)) entries.push(next);
  }
  const files = new Map([...codes.keys()].map((name) => [packed[name] ?? name, []]));
  for (const [name, code] of codes)
    files
      .get(packed[name] ?? name)
      .push(`${JSON.stringify(name)}: function (exports, require, module, __filename, __dirname) {${code}\n}`);
  const texts = new Map([...files].map(([file, modules]) => [file, `({${modules.join(',\n')}})`]));
  return { files: texts, packed };
}

/** The program (src/cli/main.ts) split and packed (packChunks) for `format` (distImportMetaUrl's), `options` over COMMON's; and esbuild's metafile. */
export async function packedProgram(format, options) {
  const main = await build({
    ...COMMON,
    ...options,
    format: 'esm',
    splitting: true,
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    metafile: true,
    write: false,
    plugins: [distImportMetaUrl(format), undiciEntry, commanderLazySpawn],
  });
  return { ...(await packChunks(main.outputFiles, main.metafile)), metafile: main.metafile };
}

/**
 * The loader of packed chunks (packChunks): each chunk's module function is run as Node runs a
 * CommonJS file, once, on its first require; the pack holding it (PACKED) is compiled on the
 * first require of one of its chunks (`chunk(file)`: its text, and V8's code cache of it where
 * there is one), its chunks' __filename in `dir`. What is not a chunk is required by `builtin`.
 */
export const PACK_LOADER = `const { join, sep } = require('node:path');
const { Script } = require('node:vm');
const loaded = new Map();
const scripts = new Map();
const files = new Map();
function load(name) {
  let module = loaded.get(name);
  if (module !== undefined) return module.exports;
  module = { exports: {} };
  loaded.set(name, module);
  const file = PACKED[name] ?? name;
  let modules = files.get(file);
  if (modules === undefined) {
    const [text, cachedData] = chunk(file);
    const compiled = new Script(text, { filename: dir + sep + file, cachedData });
    scripts.set(file, compiled);
    files.set(file, (modules = compiled.runInThisContext()));
  }
  const filename = dir + sep + name;
  const require = (id) => (id.startsWith('./') ? load(id.slice(2)) : builtin(id));
  modules[name].call(module.exports, module.exports, require, module, filename, dir);
  return module.exports;
}
`;

/**
 * The training run's loader (trainCodeCache): the packs from TRAIN_SCRIPT's directory (packed.json
 * beside it), compiled as the program's own loader compiles them, with the cache an earlier
 * training run wrote; as the process exits, each loaded pack's cache is written into TRAIN_CACHE
 * (a directory): what every run so far compiled (the dry run's, --help's). With TRAIN_NEW_ONLY (the
 * remote run, last) only the packs no earlier run loaded get one. The chunks' directory is
 * TRAIN_MODULE_DIR (the npm install's dist/bundle), else the executable's.
 */
export const PACK_TRAINER = `'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
${PACK_LOADER}const from = require('node:path').dirname(process.env.TRAIN_SCRIPT);
const dir = process.env.TRAIN_MODULE_DIR || join(process.execPath, 'dist', 'bundle');
const builtin = require('node:module').createRequire(join(dir, 'packed.json'));
const PACKED = JSON.parse(readFileSync(join(from, '..', 'packed.json'), 'utf8'));
const cacheOf = (name) => join(process.env.TRAIN_CACHE, name + '.cache');
const uncached = new Set();
const chunk = (name) => {
  if (existsSync(cacheOf(name))) return [readFileSync(join(from, name), 'utf8'), readFileSync(cacheOf(name))];
  uncached.add(name);
  return [readFileSync(join(from, name), 'utf8'), undefined];
};
process.on('exit', () => {
  for (const [name, compiled] of scripts)
    if (!process.env.TRAIN_NEW_ONLY || uncached.has(name)) writeFileSync(cacheOf(name), compiled.createCachedData());
});
process.argv.splice(1, 0, process.env.TRAIN_SCRIPT);
load(require('node:path').basename(process.env.TRAIN_SCRIPT));
`;

/**
 * The remote training run's token; none for the others (a token set while the target resolves
 * to local is refused, docs/remote.md), whatever the builder's own environment holds.
 */
function trainingTarget(remote) {
  return remote ? { EXAMCTL_TOKEN: 'code-cache-training' } : { EXAMCTL_TOKEN: undefined, EXAMCTL_BASE_URL: undefined };
}

/**
 * Writes into `cache` (a directory) V8's code cache of each pack `script` (the entry pack of a
 * packChunks program) loads as `node` runs it with `trainer` (PACK_TRAINER), after training runs:
 * `startRuns` (argument lists, in turn, each from the caches the runs before wrote: the start-ups
 * measured against `node -e 0`), then a remote `user sync` of fixtures/users.csv against a loopback
 * server in this process, which makes the caches of the packs only it loads (undici, the client) and
 * leaves the others as the start-up runs made them: a pack's cache is deserialized whole at each
 * load, so a dry run would pay for the send path's functions at every start, while a remote run
 * compiles those once, lazily (bench/README.md, "Issue 82 item 4: caches made by the start-ups").
 * `env`: what the trainer is told beside.
 */
export async function trainCodeCache(node, script, cache, trainer, startRuns = [], env = {}) {
  // The answer names the user sent: one naming another fails the record (docs/remote.md).
  const server = createServer((req, res) => {
    // The run's question for a served store's head (docs/remote.md): answered as a platform would, a route it does not know.
    if (req.method === 'GET') return void res.writeHead(404, { 'content-length': 0 }).end();
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const reply = JSON.stringify({
        Content: { User: { ExternalId: JSON.parse(body).ExternalId, FirstName: 'A', LastName: 'B' }, GroupErrors: [] },
        Success: true,
        Errors: null,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) }).end(reply);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-code-cache-'));
  // A config directory of its own, there: one named but missing refuses the local dry run (docs/remote.md).
  mkdirSync(join(scratch, 'config'));
  try {
    const remote = [
      'user',
      'sync',
      '--target',
      'remote',
      '--base-url',
      `http://127.0.0.1:${server.address().port}`,
      '--file',
      join(root, 'fixtures/users.csv'),
      '--yes',
      '--no-input',
    ];
    for (const args of [...startRuns, remote]) {
      const child = spawn(node, ['-e', trainer, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        cwd: scratch,
        env: {
          ...process.env,
          CI: 'true',
          TRAIN_SCRIPT: script,
          TRAIN_CACHE: cache,
          ...env,
          ...trainingTarget(args === remote),
          ...(args === remote ? { TRAIN_NEW_ONLY: '1' } : {}),
          EXAMCTL_CONFIG_DIR: join(scratch, 'config'),
          EXAMCTL_RUNS_DIR: join(scratch, 'runs'),
          HOME: scratch,
        },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
      const [code] = await once(child, 'exit');
      if (code !== 0 || !existsSync(cache))
        throw new Error(`the code cache's training run ${args.slice(0, 2).join(' ')} failed (exit ${code}): ${stderr}`);
    }
  } finally {
    server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The code-cached program bin/examctl runs under the Node that built it: the same program as
 * packChunks' packs in dist/bundle/packed/ (packed.json: each chunk's pack), each with V8's code
 * cache of it made here by training runs (a dry run on the local target and `--help`, then a remote
 * `user sync` for the packs only it loads), as the one-file executable's are: a start compiles only the packs it loads, each
 * from its cache (`--version` its entry pack alone). Node 20 has no compile cache for modules
 * (module.enableCompileCache is Node 22), hence scripts. A cache is valid for one Node build:
 * code-cache.json names it, with each pack's and cache's CRC-32 (V8 checks a cache only against
 * its script's length: bin/examctl uses a cache only with the pack it was made for).
 */
async function buildCodeCachedPacks() {
  const packedDir = join(BUNDLE_DIR, 'packed');
  const { files, packed } = await packedProgram('cjs', { outdir: packedDir });
  mkdirSync(packedDir, { recursive: true });
  for (const [file, text] of files) writeFileSync(join(packedDir, file), text);
  writeFileSync(join(BUNDLE_DIR, 'packed.json'), JSON.stringify(packed));
  await trainCodeCache(
    process.execPath,
    join(packedDir, 'examctl.mjs'),
    packedDir,
    PACK_TRAINER,
    [
      ['user', 'sync', '--dry-run', '--file', join(root, 'fixtures', 'users.csv')],
      ['--', '--help'],
    ],
    { TRAIN_MODULE_DIR: BUNDLE_DIR },
  );
  const crcOf = (file) => crc32(readFileSync(file));
  const cached = (file) =>
    existsSync(join(packedDir, `${file}.cache`)) ? crcOf(join(packedDir, `${file}.cache`)) : null;
  const manifest = {
    node: process.version,
    v8: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    packed,
    packs: Object.fromEntries(
      [...files.keys()].sort().map((file) => [file, { crc32: crcOf(join(packedDir, file)), cache: cached(file) }]),
    ),
  };
  writeFileSync(join(BUNDLE_DIR, 'code-cache.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

export async function buildBundle() {
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  const result = await build({
    ...COMMON,
    splitting: true,
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    // CommonJS dependencies (undici, cli-table3) call require() for Node's own modules; an ES
    // module has none, so each chunk makes one.
    banner: {
      js: "import { createRequire as __examctlRequire } from 'node:module';\nconst require = __examctlRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    plugins: [distImportMetaUrl('esm'), undiciEntry, commanderLazySpawn],
  });
  writeFileSync(join(BUNDLE_DIR, 'THIRD-PARTY-NOTICES.md'), thirdPartyNotices(result.metafile));
  writeFileSync(join(BUNDLE_DIR, 'meta.json'), JSON.stringify(result.metafile));
  // The build's id (src/version.ts: --version, doctor --json, each run journal): a hash of every
  // chunk's name and text and of the files examctl reads beside them (BUILT_IN). The chunks' hashed
  // names are left out (esbuild's hash depends on the checkout's folder): one commit, one id.
  const program = createHash('sha256');
  const unnamed = (text) => text.replace(/-[A-Z0-9]{8}\.mjs/g, '.mjs');
  const chunks = Object.keys(result.metafile.outputs).filter((name) => name.endsWith('.mjs'));
  for (const text of chunks
    .map((file) => unnamed(`${basename(file)}\n${readFileSync(join(root, file), 'utf8')}`))
    .sort())
    program.update(text);
  for (const file of BUILT_IN) program.update(`${file}\n`).update(readFileSync(join(root, file)));
  writeFileSync(join(BUNDLE_DIR, 'examctl.sha256'), program.digest('hex'));
  try {
    await buildCodeCachedPacks();
  } catch (error) {
    // Without it examctl starts slower, never differently (bin/examctl runs the chunks); a build
    // where no loopback server can listen still builds. test/e2e/startup-modules.test.ts fails.
    rmSync(join(BUNDLE_DIR, 'code-cache.json'), { force: true });
    console.warn(`build-bundle: no code cache: ${error instanceof Error ? error.message : error}`);
  }
  return result;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildBundle();
  if (!existsSync(join(BUNDLE_DIR, 'examctl.mjs'))) throw new Error('the bundle has no entry');
}
