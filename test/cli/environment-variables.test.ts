import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ENVIRONMENT_VARIABLES,
  misspelledVariables,
  renderEnvironmentHelp,
} from '../../src/cli/environment-variables.js';

const SRC = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Variables the code reads: `env.NAME`, `env['NAME']`, and any EXAMCTL_* named in code. */
function variablesReadBySource(): Set<string> {
  const found = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      found.add((match[1] ?? match[2])!);
    for (const match of text.matchAll(/\bEXAMCTL_[A-Z0-9_]+\b/g)) found.add(match[0]);
  }
  // The version constant, not an environment variable.
  found.delete('EXAMCTL_VERSION');
  return found;
}

describe('help environment', () => {
  it('lists every environment variable the code reads', () => {
    const listed = new Set(ENVIRONMENT_VARIABLES.map((variable) => variable.name));
    const missing = [...variablesReadBySource()].filter((name) => !listed.has(name));
    expect(missing).toEqual([]);
  });

  it('renders one aligned line per variable, naming the flag that wins', () => {
    const text = renderEnvironmentHelp();
    expect(text).toMatch(
      /^  EXAMCTL_STORE +the local store directory \(default \.\/\.examctl-store\)\. \(--store wins over it\)$/m,
    );
    // Aligned: every meaning starts in the same column.
    const columns = new Set(
      text
        .split('\n')
        .filter((line) => /^  [A-Z]/.test(line))
        .map((line) => /^  \S+ +/.exec(line)![0].length),
    );
    expect(columns.size).toBe(1);
    expect(text.trimEnd().split('\n')).toHaveLength(ENVIRONMENT_VARIABLES.length + 2);
  });
});

describe('examctl help environment', () => {
  it('prints the list on stdout, exactly', async () => {
    const { runCli } = await import('../../src/cli/run-cli.js');
    const { testDeps } = await import('./helpers.js');
    const io = testDeps('/tmp');
    expect(await runCli(['help', 'environment'], io.deps)).toBe(0);
    expect(io.stdout.text).toBe(renderEnvironmentHelp());
  });
});

describe("a variable of examctl's prefix it does not read", () => {
  it('is said when a known one is one or two edits away, or is it with a part left off; others are left alone', () => {
    const notes = misspelledVariables({
      EXAMCTL_SYNCDIR: '/memory',
      EXAMCTL_BASE_ULR: 'https://exam.example.test',
      EXAMCTL_LOCK_TIMEOUT: '60000',
      EXAMCTL_TOKEN: 't',
      EXAMCTL_RELEASE_CACHE: '/cache',
      'EXAMCTL_\u001b[31m': 'x',
    });
    expect(notes).toEqual([
      expect.stringMatching(/^note: EXAMCTL_SYNCDIR is set, .*did you mean EXAMCTL_SYNC_DIR\?/),
      expect.stringMatching(/EXAMCTL_BASE_ULR .*EXAMCTL_BASE_URL\?/),
      expect.stringMatching(/EXAMCTL_LOCK_TIMEOUT .*EXAMCTL_LOCK_TIMEOUT_MS\?/),
    ]);
  });

  it('a run says it on stderr and goes on', async () => {
    const { runCli } = await import('../../src/cli/run-cli.js');
    const { testDeps } = await import('./helpers.js');
    const io = testDeps('/tmp', {}, { EXAMCTL_STOP_GRACE: '5000' });
    expect(await runCli(['explain', 'E2100'], io.deps)).toBe(0);
    expect(io.stderr.text).toContain(
      'note: EXAMCTL_STOP_GRACE is set, but examctl reads no such variable: did you mean EXAMCTL_STOP_GRACE_MS?',
    );
    expect(io.stdout.text).toContain('E2100');
  });
});
