import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/command-tree.js';
import {
  flagTable,
  renderDefaultSpans,
  renderFlagBlocks,
  renderTakesBlocks,
  takesTable,
} from '../../scripts/doc-tables.js';
import { declareCommand } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import {
  LOCAL_CONCURRENCY,
  PRUNE_KEEP_FINISHED,
  PRUNE_MAX_AGE_DAYS,
  REMOTE_CONCURRENCY,
  SERVED_CONCURRENCY,
} from '../../src/defaults.js';
import { testDeps } from '../cli/helpers.js';
import { ROOT } from '../support/cli.js';

/**
 * Every `<!-- flags: ... -->` block in docs/*.md and README.md says what `--help` says
 * (scripts/doc-tables.ts): a flag or a description changed in an option table fails here,
 * naming the doc and the command, until `npm run docs:flags` rewrote the block.
 */

const program = buildProgram(testDeps('/').deps, () => undefined, COMMANDS);
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('generated flag tables', () => {
  it('every block in the docs is up to date with the command tree', () => {
    const stale = DOCS.flatMap((doc) =>
      renderFlagBlocks(readFileSync(join(ROOT, doc), 'utf8'), program)
        .blocks.filter((block) => !block.upToDate)
        .map((block) => `${doc}: the flags of "${block.marker}" changed; run npm run docs:flags`),
    );
    expect(stale).toEqual([]);
  });

  it('the docs hold at least one block (the xlsx flags of docs/input-formats.md)', () => {
    const markers = DOCS.flatMap((doc) =>
      renderFlagBlocks(readFileSync(join(ROOT, doc), 'utf8'), program).blocks.map((block) => block.marker),
    );
    expect(markers).toContain('user sync --sheet --hidden-rows --timezone --report --only-failed');
  });

  it("a block is rewritten from the option tables: flag text and --help's description, pipes escaped, global flags by name", () => {
    const doc =
      'Intro\n\n<!-- flags: runs prune --all --report -->\n| flag | what it does |\n|---|---|\n| `--all` | an old text |\n<!-- /flags -->\nAfter\n';
    const { text, blocks } = renderFlagBlocks(doc, program);
    expect(blocks).toEqual([{ marker: 'runs prune --all --report', upToDate: false }]);
    expect(text).toBe(
      'Intro\n\n<!-- flags: runs prune --all --report -->\n| flag | what it does |\n|---|---|\n' +
        '| `--all` | also remove interrupted runs past the same age and count (never a running one) |\n' +
        '| `--report <file>` | also write the per-record run report to a .json, .csv, .xlsx, .xml (JUnit) or .html (a page to read) file (written atomically) |\n' +
        '<!-- /flags -->\nAfter\n',
    );
    expect(renderFlagBlocks(text, program).blocks).toEqual([{ marker: 'runs prune --all --report', upToDate: true }]);
    expect(flagTable(program, 'collection add --sheet')).toContain('| `--sheet <name\\|number>` |');
  });

  it("without flags named, a block lists all the command's own flags (not the global ones), defaults and choices as --help shows them", () => {
    const table = flagTable(program, 'local serve');
    const serve = program.commands
      .find((command) => command.name() === 'local')!
      .commands.find((command) => command.name() === 'serve')!;
    expect(table.split('\n').filter((line) => line.startsWith('| `'))).toHaveLength(serve.options.length);
    expect(table).toContain('(default: "127.0.0.1")');
    expect(table).not.toContain('--json');
  });

  it('the defaults the docs state are the named constants the code applies (src/defaults.ts), as --help states them', () => {
    const stale = DOCS.flatMap((doc) =>
      renderDefaultSpans(readFileSync(join(ROOT, doc), 'utf8'))
        .blocks.filter((block) => !block.upToDate)
        .map((block) => `${doc}: ${block.marker} changed; run npm run docs:flags`),
    );
    expect(stale).toEqual([]);
    const spans = DOCS.flatMap((doc) =>
      renderDefaultSpans(readFileSync(join(ROOT, doc), 'utf8')).blocks.map((block) => `${doc} ${block.marker}`),
    );
    expect(spans).toEqual(
      expect.arrayContaining([
        'docs/cli.md default: remote-concurrency',
        'docs/remote.md default: remote-concurrency',
        'docs/cli.md default: local-concurrency',
        'docs/remote.md default: served-concurrency',
        'docs/runs.md default: prune-max-age-days',
        'docs/runs.md default: prune-keep-finished',
      ]),
    );
    expect(renderDefaultSpans('at <!-- default: remote-concurrency -->16<!-- /default --> in flight')).toEqual({
      text: `at <!-- default: remote-concurrency -->${REMOTE_CONCURRENCY}<!-- /default --> in flight`,
      blocks: [{ marker: 'default: remote-concurrency', upToDate: false }],
    });
    expect(() => renderDefaultSpans('<!-- default: nope -->1<!-- /default -->')).toThrow(
      'default "nope": no such named default',
    );
    expect(flagTable(program, 'user sync --concurrency')).toContain(
      `(default ${REMOTE_CONCURRENCY}; ${SERVED_CONCURRENCY} toward examctl local serve)`,
    );
    expect(flagTable(program, 'runs prune --older-than')).toContain(`(default ${PRUNE_MAX_AGE_DAYS}d)`);
    const prune = COMMANDS.find((each) => each.path.join(' ') === 'runs prune')!;
    expect(prune.description).toContain(`older than ${PRUNE_MAX_AGE_DAYS} days`);
    expect(prune.description).toContain(`beyond the newest ${PRUNE_KEEP_FINISHED}`);
    expect(LOCAL_CONCURRENCY).toBeGreaterThan(REMOTE_CONCURRENCY);
    expect(SERVED_CONCURRENCY).toBeGreaterThan(REMOTE_CONCURRENCY);
  });

  it('a block naming an unknown command or flag is an error naming it', () => {
    expect(() => flagTable(program, 'user frobnicate')).toThrow(
      'flag table "user frobnicate": no command "user frobnicate"',
    );
    expect(() => flagTable(program, 'runs list --sheet')).toThrow(
      'flag table "runs list --sheet": "runs list" takes no --sheet',
    );
  });

  it("docs/cli.md's table of the global flags each command takes is the declarations' `takes`", () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const { blocks } = renderTakesBlocks(doc);
    expect(blocks).toEqual([{ marker: 'global flags', upToDate: true }]);
  });

  it("a takes table has a row naming every runnable command, and follows a declaration's change", () => {
    const table = takesTable('global flags', COMMANDS);
    for (const declaration of COMMANDS.filter((each) => each.options !== undefined))
      expect(table).toContain(`\`${declaration.path.join(' ')}\``);
    expect(table).toMatch(/^\| `local serve` \| `--store`, `--target local` \(not `remote`\) \|$/m);
    expect(table).toMatch(/^\| every command \| .*`--json`/m);
    // A command added, or one that takes one more flag: the doc's block is stale until rewritten.
    const added = declareCommand({ path: ['roster', 'push'], description: 'd', examples: [], options: [], takes: [] });
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(renderTakesBlocks(doc, [...COMMANDS, added]).blocks[0]!.upToDate).toBe(false);
    const wider = COMMANDS.map((each) =>
      each.path.join(' ') === 'runs prune' ? { ...each, takes: ['--profile' as const] } : each,
    );
    expect(renderTakesBlocks(doc, wider).blocks[0]!.upToDate).toBe(false);
    expect(takesTable('global flags', wider)).toMatch(/^\| `runs prune` \| `--profile` \|$/m);
    expect(() => takesTable('nope', COMMANDS)).toThrow('takes table "nope"');
  });
});
