import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { DocSession, docSteps, matchesOutput, normaliseVarying, type DocCommand } from '../support/doc-session.js';

/**
 * docs/tutorial.md and the README's dry-run example, run as written (test/support/doc-session.ts
 * says how a document marks its commands and outputs): every command in a scratch "clone" under
 * a private HOME shown as /home/you, each output compared with the document's. When the tool's
 * output changes on purpose, DOC_TEST_PRINT=1 prints what each command printed, to paste.
 */

const PRINT = process.env.DOC_TEST_PRINT === '1';
const FIXTURES = ['users-with-errors.csv', 'sittings.csv', 'users.csv', 'world.json'];

interface Scratch {
  root: string;
  home: string;
  clone: string;
}

function scratch(): Scratch {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'examctl-doc-')));
  const home = join(root, 'home');
  const clone = join(home, 'examctl');
  mkdirSync(join(clone, 'fixtures'), { recursive: true });
  for (const name of FIXTURES) copyFileSync(join(ROOT, 'fixtures', name), join(clone, 'fixtures', name));
  return { root, home, clone };
}

async function expectOutput(session: DocSession, step: DocCommand, source: string): Promise<void> {
  const actual = await session.run(step.command);
  const expected = step.expected.map(normaliseVarying);
  if (PRINT) {
    process.stdout.write(`\n### ${source}:${step.line} $ ${step.command}\n${actual.join('\n')}\n`);
    return;
  }
  // On a difference, the whole output against the whole documented one (vitest shows the diff).
  if (!matchesOutput(expected, actual))
    expect(actual.join('\n'), `${source}:${step.line} $ ${step.command}`).toBe(expected.join('\n'));
}

/** Sheet cells by header name; rows given as header -> value. */
async function editSheet(
  path: string,
  edit: (cell: (row: number, column: string) => ExcelJS.Cell, sheet: ExcelJS.Worksheet) => void,
): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheet = workbook.worksheets[0]!;
  const header = new Map<string, number>();
  sheet.getRow(1).eachCell((cell, column) => header.set(String(cell.value), column));
  edit((row, column) => {
    const index = header.get(column);
    if (index === undefined) throw new Error(`${path} has no column ${column}`);
    return sheet.getRow(row).getCell(index);
  }, sheet);
  await workbook.xlsx.writeFile(path);
}

/** What the tutorial asks the reader to do by hand, done as they would. */
const MANUAL_STEPS: Record<string, (cwd: string) => Promise<void>> = {
  // Step 4b: the template's Users sheet filled in a spreadsheet, Role included.
  'fill-users-xlsx': (cwd) =>
    editSheet(join(cwd, 'users.xlsx'), (cell) => {
      const rows: Record<string, string>[] = [
        {
          ExternalId: '00456',
          FirstName: 'Ann',
          LastName: 'Lee',
          Email: 'ann.lee@students.example.test',
          Role: 'Candidate',
        },
        {
          ExternalId: '00457',
          FirstName: 'Bruno',
          LastName: 'Garc?a',
          Email: 'bruno(at)students.example.test',
          CellularPhone: '1.23457E+18',
          Role: 'Candidate',
        },
        {
          ExternalId: '00458',
          FirstName: 'Chloé',
          LastName: 'Martin',
          Email: 'chloe.martin@students.example.test',
          Role: 'Candidate',
        },
      ];
      rows.forEach((fields, i) => {
        for (const [column, value] of Object.entries(fields)) cell(i + 2, column).value = value;
      });
    }),
  // Step 4b: row 3 of the xlsx report fixed.
  'fix-result-xlsx': (cwd) =>
    editSheet(join(cwd, 'result.xlsx'), (cell) => {
      if (cell(3, 'ExternalId').value !== '00457') throw new Error('row 3 of result.xlsx is not 00457');
      // The cell the row failed on carries its code and message as a note, where the officer fixes it.
      const note = cell(3, 'Email').note;
      const noted = typeof note === 'string' ? note : (note?.texts ?? []).map((run) => run.text).join('');
      if (!noted.startsWith('209 Email: ')) throw new Error(`row 3's Email cell has no note of 209: ${noted}`);
      cell(3, 'Email').value = 'bruno.garcia@students.example.test';
      cell(3, 'LastName').value = 'García';
      cell(3, 'CellularPhone').value = '1234567890123456789';
    }),
};

let dirs: Scratch[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir.root, { recursive: true, force: true });
  dirs = [];
});

// The documents show a POSIX shell session (sh, sed, cat, head).
const posix = process.platform !== 'win32';

describe.runIf(posix)('docs/tutorial.md', () => {
  it('every command prints what the tutorial shows', async () => {
    const dir = scratch();
    dirs.push(dir);
    const session = new DocSession({ cwd: dir.clone, home: dir.home, paths: [[dir.home, '/home/you']] });
    const steps = docSteps(readFileSync(join(ROOT, 'docs', 'tutorial.md'), 'utf8'));
    // The tutorial's shape: something to run, a server to start, hand steps to do.
    expect(steps.filter((step) => step.kind === 'run').length).toBeGreaterThan(10);
    expect(steps.filter((step) => step.kind === 'background')).toHaveLength(1);
    expect(steps.filter((step) => step.kind === 'do').map((step) => step.kind === 'do' && step.name)).toEqual(
      Object.keys(MANUAL_STEPS),
    );
    try {
      for (const step of steps) {
        if (step.kind === 'do') {
          const handler = MANUAL_STEPS[step.name];
          if (handler === undefined) throw new Error(`docs/tutorial.md:${step.line}: no handler for "do ${step.name}"`);
          await handler(session.directory);
        } else if (step.kind === 'background') {
          const printed = await session.start(step.command.command, step.port, step.command.expected.length);
          if (PRINT) process.stdout.write(`\n### background $ ${step.command.command}\n${printed.join('\n')}\n`);
          else
            expect(printed.join('\n'), `docs/tutorial.md:${step.command.line}`).toBe(
              step.command.expected.map(normaliseVarying).join('\n'),
            );
        } else {
          for (const command of step.commands) await expectOutput(session, command, 'docs/tutorial.md');
        }
      }
    } finally {
      await session.close();
    }
  });
});

describe.runIf(posix)("README's dry-run example", () => {
  it('prints what the README shows', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const command = 'npx examctl user sync --file fixtures/users-with-errors.csv --dry-run';
    // The ```sh block holding the command, then the ``` block of what it prints.
    const block = new RegExp(
      `\`\`\`sh\\n${command.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n\`\`\`\\n\\n\`\`\`\\n([\\s\\S]*?)\`\`\`\\n`,
    ).exec(readme);
    expect(block, 'README holds the command and its output block').not.toBeNull();
    const dir = scratch();
    dirs.push(dir);
    // The README runs in a clone, shown as /path; `npx examctl` is the clone's bin/examctl.
    const session = new DocSession({ cwd: dir.clone, home: dir.home, paths: [[dir.clone, '/path']] });
    // As the README goes: its first command (a schedule push) made the store the dry run plans against.
    await session.run('examctl schedule push --file fixtures/sittings.csv');
    const expected = block![1]!.replace(/\n$/, '').split('\n');
    await expectOutput(
      session,
      { command: command.replace(/^npx /, ''), expected, line: readme.slice(0, block!.index).split('\n').length + 1 },
      'README.md',
    );
  });
});
