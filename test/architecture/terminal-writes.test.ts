import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The one gate by construction (docs/security.md, "Terminals"): a line for a terminal is written
 * with `say` or `printLine` (src/formats/terminal-text.ts), never with `.stderr.write(` or
 * `.stdout.write(` itself. Only the files below write a stream directly, each for the reason
 * given: the gate, structured output (JSON, CSV through `dataForStdout`, a file), or text that
 * is fixed or gated where it is built. A new raw write elsewhere fails here (trial25 f01, f02).
 */
const MAY_WRITE: Readonly<Record<string, string>> = {
  'src/formats/terminal-text.ts': 'the gate itself',
  'src/context/command-deps.ts': 'printJson: one JSON document',
  'src/cli/run-cli.ts': 'errors through terminalLines; the stdout wrapper',
  'src/cli/main.ts': 'fixed lines of the process (interrupt, internal error, version)',
  'src/cli/command-tree.ts': "commander's help (declared text) and errors (terminalLines in outputError)",
  'src/cli/commands/template.ts': 'shipped templates and examples (data)',
  'src/cli/commands/completion.ts': 'the completion script (data)',
  'src/cli/commands/local-export.ts': 'the world file (data)',
  'src/pipeline/review-session-show.ts': 'the gated table of each session',
  'src/report/review-session-csv.ts': 'JSON, NDJSON, CSV through dataForStdout',
  'src/pipeline/schedule-links.ts': 'CSV through dataForStdout, the gated table',
  'src/context/doctor-checks.ts': 'the check report, each line gated in renderReport',
  'src/cli/commands/synced-transfer.ts': "the export, into --out's file",
  'src/cli/commands/local-serve.ts': 'the request log and its own lines, each through terminalLine',
  'src/pipeline/run-pipeline.ts': 'the plain progress line (counts and the command name)',
};

const RAW_WRITE = /\b(?:stdout|stderr)\.write\(/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const writers = new Map(
  sources(join(ROOT, 'src'))
    .map(
      (file) =>
        [relative(ROOT, file).split('\\').join('/'), readFileSync(file, 'utf8').match(RAW_WRITE)?.length ?? 0] as const,
    )
    .filter(([, count]) => count > 0),
);

describe('writes to a terminal stream', () => {
  it('the pattern finds the writes a command would make', () => {
    expect(
      'await deps.stderr.write(`${id}\\n`); process.stdout.write(x); say(deps, line)'.match(RAW_WRITE),
    ).toHaveLength(2);
  });

  it('only the listed files write stdout or stderr themselves: every other line passes say or printLine', () => {
    expect([...writers.keys()].filter((file) => !Object.hasOwn(MAY_WRITE, file))).toEqual([]);
  });

  it('every listed file still writes a stream (the list holds no stale exception)', () => {
    expect(Object.keys(MAY_WRITE).filter((file) => !writers.has(file))).toEqual([]);
  });
});
