import { describe, expect, it } from 'vitest';
import { docSteps, matchesOutput, normaliseVarying } from '../support/doc-session.js';

describe('reading a document session (test/support/doc-session.ts)', () => {
  it('takes $ lines as commands (\\ continues one), the lines below as output, and obeys the directives', () => {
    const doc = [
      '```console',
      "$ sed -e 's/a/b/' \\",
      '      file.txt   # why',
      'b',
      '$ echo two',
      'two',
      '```',
      '<!-- doc-test: skip (installing) -->',
      '```console',
      '$ npm ci',
      '```',
      '<!-- doc-test: do fill-it -->',
      '<!-- doc-test: background port=8765 -->',
      '```console',
      '$ examctl local serve --port 8765',
      'listening on http://127.0.0.1:8765',
      '```',
    ].join('\n');
    expect(docSteps(doc)).toEqual([
      {
        kind: 'run',
        commands: [
          { command: "sed -e 's/a/b/' \\\n      file.txt", expected: ['b'], line: 2 },
          { command: 'echo two', expected: ['two'], line: 5 },
        ],
      },
      { kind: 'do', name: 'fill-it', line: 12 },
      {
        kind: 'background',
        port: 8765,
        command: {
          command: 'examctl local serve --port 8765',
          expected: ['listening on http://127.0.0.1:8765'],
          line: 15,
        },
      },
    ]);
    expect(() => docSteps('<!-- doc-test: sometimes -->\n```console\n$ ls\n```')).toThrow(/unknown doc-test directive/);
  });

  it('matches output exactly, except that a ... line stands for any lines', () => {
    expect(matchesOutput(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(matchesOutput(['a', 'b'], ['a', 'b', 'c'])).toBe(false);
    expect(matchesOutput(['a', 'b'], ['a', 'x'])).toBe(false);
    expect(matchesOutput(['a', '  ...', 'z'], ['a', 'b', 'c', 'z'])).toBe(true);
    expect(matchesOutput(['a', '...', 'z'], ['a', 'z'])).toBe(true);
    expect(matchesOutput(['a', '...', 'z'], ['a', 'b'])).toBe(false);
  });

  it('reads run ids, durations, probe ids and clock skew alike wherever they come from', () => {
    expect(normaliseVarying('run 20261123T091502.481Z-3f9a (examctl runs show 20261123T091502.481Z-3f9a)')).toBe(
      'run <run id> (examctl runs show <run id>)',
    );
    expect(normaliseVarying('GET /x/examctl-doctor-a27acb4caba1 answered 400 in 43 ms')).toBe(
      'GET /x/examctl-doctor-<id> answered 400 in <n> ms',
    );
    expect(normaliseVarying('ok    clock      server clock -1 s from ours')).toBe(
      'ok    clock      server clock <n> s from ours',
    );
    expect(normaliseVarying('none at /home/you/.local/state/examctl/synced/1d14ed834b02f423; if')).toBe(
      'none at /home/you/.local/state/examctl/synced/<target digest>; if',
    );
  });
});
