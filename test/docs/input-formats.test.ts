import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { DocSession, docSteps, matchesOutput, normaliseVarying } from '../support/doc-session.js';

/**
 * The SIS and HR worked example of docs/input-formats.md (its HEADING below), run as written: the files
 * it shows (each block after `<!-- doc-file: NAME [windows-1252] [crlf] -->`, written as the note
 * says) in a scratch directory under a private HOME shown as /home/you, then every command, each
 * output compared with the document's (test/support/doc-session.ts). DOC_TEST_PRINT=1 prints what
 * each command printed, to paste when the output changes on purpose.
 */

const PRINT = process.env.DOC_TEST_PRINT === '1';
const HEADING = '### Worked example: an SIS and an HR export';

/** The section: from its heading to the next heading of its level or above. */
function section(markdown: string): string {
  const start = markdown.indexOf(HEADING);
  if (start === -1) throw new Error(`docs/input-formats.md has no "${HEADING}"`);
  const end = markdown.slice(start + HEADING.length).search(/\n#{2,3} /);
  return end === -1 ? markdown.slice(start) : markdown.slice(start, start + HEADING.length + end);
}

/** The files the section shows, as the export or the editor would have saved them. */
function docFiles(text: string): { name: string; bytes: Buffer }[] {
  const files: { name: string; bytes: Buffer }[] = [];
  for (const match of text.matchAll(/<!-- doc-file: (\S+)((?: \S+)*) -->\n```\w*\n([\s\S]*?)\n```/g)) {
    const [, name, notes, body] = match as unknown as [string, string, string, string];
    const how = notes.trim().split(/\s+/);
    const content = `${how.includes('crlf') ? body.replaceAll('\n', '\r\n') : body}${how.includes('crlf') ? '\r\n' : '\n'}`;
    files.push({
      name,
      bytes: how.includes('windows-1252') ? Buffer.from(content, 'latin1') : Buffer.from(content, 'utf8'),
    });
  }
  return files;
}

/** What the section asks the reader to do by hand, done as they would. */
const MANUAL_STEPS: Record<string, (cwd: string) => void> = {
  'add-maths': (cwd) => {
    const file = join(cwd, 'sis-map.json');
    const map = JSON.parse(readFileSync(file, 'utf8')) as { Department: { values: Record<string, string> } };
    map.Department.values.Maths = 'DEPT-MATH';
    writeFileSync(file, `${JSON.stringify(map, null, 2)}\n`);
  },
};

let scratch: string | undefined;

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe.runIf(process.platform !== 'win32')('docs/input-formats.md, the SIS and HR worked example', () => {
  it('goes from the raw exports to a clean dry run with only a map file and a profile each', async () => {
    const text = section(readFileSync(join(ROOT, 'docs', 'input-formats.md'), 'utf8'));
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'examctl-doc-')));
    const home = join(scratch, 'home');
    const cwd = join(home, 'school');
    mkdirSync(cwd, { recursive: true });
    const files = docFiles(text);
    expect(files.map((file) => file.name)).toEqual(['sis.csv', 'hr.csv', 'sis-map.json', 'hr-map.json']);
    // The SIS's export is Windows-1252 as saved: its accents are single bytes, not UTF-8.
    expect(files[0]!.bytes.includes(Buffer.from('Siobh\xe1n', 'latin1'))).toBe(true);
    for (const file of files) writeFileSync(join(cwd, file.name), file.bytes);
    const steps = docSteps(text);
    expect(steps.filter((step) => step.kind === 'do').map((step) => step.kind === 'do' && step.name)).toEqual(
      Object.keys(MANUAL_STEPS),
    );
    const session = new DocSession({ cwd, home, paths: [[home, '/home/you']] });
    try {
      for (const step of steps) {
        if (step.kind === 'do') {
          MANUAL_STEPS[step.name]!(session.directory);
          continue;
        }
        if (step.kind !== 'run') throw new Error('the section starts no server');
        for (const command of step.commands) {
          const actual = await session.run(command.command);
          if (PRINT) {
            process.stdout.write(
              `\n### docs/input-formats.md:${command.line} $ ${command.command}\n${actual.join('\n')}\n`,
            );
            continue;
          }
          const expected = command.expected.map(normaliseVarying);
          if (!matchesOutput(expected, actual))
            expect(actual.join('\n'), `docs/input-formats.md:${command.line} $ ${command.command}`).toBe(
              expected.join('\n'),
            );
        }
      }
    } finally {
      await session.close();
    }
  });
});
