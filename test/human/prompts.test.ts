import { describe, it, expect, vi, afterEach } from 'vitest';
import { promptsAllowed, type CommandDeps } from '../../src/context/command-deps.js';
import { promptsOffBy } from '../../src/terminal/prompt-state.js';
import {
  confirmSend,
  missingValue,
  promptCollectionTitle,
  promptInvigilatorIds,
  promptInvigilators,
  promptScheduleFields,
  promptUser,
} from '../../src/terminal/prompts.js';
import { InterruptedError, UsageError } from '../../src/system/errors.js';
import { FakeTerminal, KEY } from './fake-terminal.js';
import { parseDateFormat } from '../../src/domain/local-time.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('promptsAllowed', () => {
  const cases: Array<[boolean | undefined, boolean, Record<string, string>, boolean]> = [
    [true, false, {}, true],
    [false, false, {}, false],
    [undefined, false, {}, false],
    [true, true, {}, false],
    [true, false, { CI: 'true' }, false],
    [true, false, { CI: '1' }, false],
    [true, false, { CI: 'false' }, true],
    [false, true, { CI: 'true' }, false],
  ];
  it.each(cases)('isTTY=%s noInput=%s env=%j -> %s', (isTTY, noInput, env, expected) => {
    const deps = { isTTY, env } as unknown as CommandDeps;
    expect(promptsAllowed(noInput ? { input: false } : {}, deps)).toBe(expected);
  });
});

describe('missingValue', () => {
  it('is a usage error (exit 2) naming the flag and what turned prompts off', () => {
    const error = missingValue('--title', '--no-input');
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('E2000');
    expect(error.message).toContain('--title');
    expect(error.message).toContain('--no-input');
  });
});

describe('promptsOffBy', () => {
  it.each([
    [{ isTTY: true, noInput: true, env: { CI: 'true' } }, '--no-input'],
    [{ isTTY: false, noInput: false, env: { CI: ' yes ' } }, 'CI=yes'],
    [{ isTTY: false, noInput: false, env: { CI: 'false' } }, 'no terminal'],
    [{ isTTY: true, noInput: false, env: { CI: '0' } }, undefined],
  ])('%j: %s, the typed flag first', (settings, off) => {
    expect(promptsOffBy(settings)).toBe(off);
  });
});

describe('promptUser', () => {
  it('asks every field, lets Role be chosen from the world and adds hierarchy memberships', async () => {
    const terminal = new FakeTerminal();
    const stdoutWrite = vi.spyOn(process.stdout, 'write');
    const answers = promptUser({ roles: ['Candidate', 'Author'] }, terminal.io);
    await terminal.play([
      { expect: 'External id', keys: `u-100${KEY.enter}` },
      { expect: 'First name', keys: `Ada${KEY.enter}` },
      { expect: 'Last name', keys: `Moreno${KEY.enter}` },
      { expect: 'E-mail', keys: `ada@example.test${KEY.enter}` },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Role', keys: `${KEY.down}${KEY.enter}` },
      { expect: 'Add a hierarchy membership?', keys: `y${KEY.enter}` },
      { expect: 'Hierarchy external id', keys: `H-NORTH${KEY.enter}` },
      { expect: 'Permissions in H-NORTH', keys: `${KEY.space}${KEY.down}${KEY.down}${KEY.space}${KEY.enter}` },
      { expect: 'Add another hierarchy membership?', keys: KEY.enter },
    ]);
    expect(await answers).toEqual({
      ExternalId: 'u-100',
      FirstName: 'Ada',
      LastName: 'Moreno',
      Email: 'ada@example.test',
      Role: 'Author',
      Hierarchies: [{ ExternalId: 'H-NORTH', IsCoordinator: true, HasViewReportsPermissions: true }],
    });
    // Prompts draw on the injected stream (stderr in the CLI), never on stdout.
    expect(stdoutWrite).not.toHaveBeenCalled();
  });

  it('shows the e-mail rule and asks again after a bad address', async () => {
    const terminal = new FakeTerminal();
    const answers = promptUser({ roles: ['Candidate'] }, terminal.io);
    await terminal.play([
      { expect: 'External id', keys: `u-101${KEY.enter}` },
      { expect: 'First name', keys: `Ben${KEY.enter}` },
      { expect: 'Last name', keys: `Okafor${KEY.enter}` },
      { expect: 'E-mail', keys: `ben at example${KEY.enter}` },
      { expect: 'Email is not a valid address', keys: `${KEY.clearLine}ben@example.test${KEY.enter}` },
      { expect: 'User name', keys: `ben${KEY.enter}` },
      { expect: 'Role', keys: KEY.enter },
      { expect: 'Add a hierarchy membership?', keys: `n${KEY.enter}` },
    ]);
    const user = await answers;
    expect(user.Email).toBe('ben@example.test');
    expect(user.UserName).toBe('ben');
    expect(user.Role).toBe('Candidate');
    expect(user).not.toHaveProperty('Hierarchies');
    expect(terminal.screen).toContain('(code 209)');
  });

  it('rejects a bad external id with its rule and an empty first name, then accepts the fixes', async () => {
    const terminal = new FakeTerminal();
    const answers = promptUser({ roles: ['Candidate'] }, terminal.io);
    await terminal.play([
      { expect: 'External id', keys: `bad id!${KEY.enter}` },
      { expect: '(code 219)', keys: `${KEY.clearLine}u-102${KEY.enter}` },
      { expect: 'First name', keys: KEY.enter },
      { expect: '(code 210)', keys: `Chloe${KEY.enter}` },
      { expect: 'Last name', keys: `Martin${KEY.enter}` },
      { expect: 'E-mail', keys: KEY.enter },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Role', keys: KEY.enter },
      { expect: 'Add a hierarchy membership?', keys: KEY.enter },
    ]);
    const user = await answers;
    expect(user).toEqual({ ExternalId: 'u-102', FirstName: 'Chloe', LastName: 'Martin', Role: 'Candidate' });
  });

  it('refuses the same hierarchy twice (243) and accepts another one', async () => {
    const terminal = new FakeTerminal();
    const answers = promptUser({ roles: ['Author'] }, terminal.io);
    await terminal.play([
      { expect: 'External id', keys: `u-106${KEY.enter}` },
      { expect: 'First name', keys: `Gus${KEY.enter}` },
      { expect: 'Last name', keys: `Lind${KEY.enter}` },
      { expect: 'E-mail', keys: KEY.enter },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Role', keys: KEY.enter },
      { expect: 'Add a hierarchy membership?', keys: `y${KEY.enter}` },
      { expect: 'Hierarchy external id', keys: `H-NORTH${KEY.enter}` },
      { expect: 'Permissions in H-NORTH', keys: KEY.enter },
      { expect: 'Add another hierarchy membership?', keys: `y${KEY.enter}` },
      { expect: 'Hierarchy external id', keys: `H-NORTH${KEY.enter}` },
      { expect: '(code 243)', keys: `${KEY.clearLine}H-SOUTH${KEY.enter}` },
      { expect: 'Permissions in H-SOUTH', keys: `${KEY.down}${KEY.space}${KEY.enter}` },
      { expect: 'Add another hierarchy membership?', keys: `n${KEY.enter}` },
    ]);
    expect((await answers).Hierarchies).toEqual([
      { ExternalId: 'H-NORTH' },
      { ExternalId: 'H-SOUTH', IsAdministrator: true },
    ]);
  });

  it('asks Role as free text without a world, requiring it for a new user', async () => {
    const terminal = new FakeTerminal();
    const answers = promptUser({}, terminal.io);
    await terminal.play([
      { expect: 'External id', keys: `u-103${KEY.enter}` },
      { expect: 'First name', keys: `Dev${KEY.enter}` },
      { expect: 'Last name', keys: `Patel${KEY.enter}` },
      { expect: 'E-mail', keys: KEY.enter },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Role (title of an existing role)', keys: KEY.enter },
      { expect: '(code 240)', keys: `Candidate${KEY.enter}` },
      { expect: 'Add a hierarchy membership?', keys: KEY.enter },
    ]);
    expect((await answers).Role).toBe('Candidate');
  });

  it("offers an existing user's values as defaults and keeps the role when left empty", async () => {
    const terminal = new FakeTerminal();
    const answers = promptUser(
      { existing: { ExternalId: 'u-104', FirstName: 'Eva', LastName: 'Kowalska', Role: 'Candidate' } },
      terminal.io,
    );
    await terminal.play([
      { expect: 'External id', keys: KEY.enter },
      { expect: 'First name', keys: KEY.enter },
      { expect: 'Last name', keys: KEY.enter },
      { expect: 'E-mail', keys: KEY.enter },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Role (empty keeps the current one)', keys: KEY.enter },
      { expect: 'Add a hierarchy membership?', keys: KEY.enter },
    ]);
    expect(await answers).toEqual({ ExternalId: 'u-104', FirstName: 'Eva', LastName: 'Kowalska' });
  });

  it('turns Ctrl-C into InterruptedError (exit 130)', async () => {
    const terminal = new FakeTerminal();
    const answers = promptUser({ roles: ['Candidate'] }, terminal.io);
    const outcome = answers.then(
      () => undefined,
      (error: unknown) => error,
    );
    await terminal.play([
      { expect: 'External id', keys: `u-105${KEY.enter}` },
      { expect: 'First name', keys: `Fe${KEY.ctrlC}` },
    ]);
    const error = await outcome;
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  });
});

describe('promptCollectionTitle', () => {
  it('rejects a title of 100 characters (805) and returns the corrected one', async () => {
    const terminal = new FakeTerminal();
    const title = promptCollectionTitle(terminal.io);
    await terminal.play([
      { expect: 'Collection title', keys: `${'x'.repeat(100)}${KEY.enter}` },
      { expect: '(code 805)', keys: `${KEY.clearLine}Algebra basics${KEY.enter}` },
    ]);
    expect(await title).toBe('Algebra basics');
  });

  it('rejects an empty title (804)', async () => {
    const terminal = new FakeTerminal();
    const title = promptCollectionTitle(terminal.io);
    await terminal.play([
      { expect: 'Collection title', keys: KEY.enter },
      { expect: '(code 804)', keys: `Geometry${KEY.enter}` },
    ]);
    expect(await title).toBe('Geometry');
  });
});

describe('promptInvigilators', () => {
  it('needs at least one invigilator ticked', async () => {
    const terminal = new FakeTerminal();
    const chosen = promptInvigilators(
      ['inv-1', 'inv-2', 'inv-3'].map((id) => ({ value: id, name: id })),
      terminal.io,
    );
    await terminal.play([
      { expect: 'Invigilators to remove', keys: KEY.enter },
      {
        expect: 'At least one choice must be selected',
        keys: `${KEY.down}${KEY.space}${KEY.down}${KEY.space}${KEY.enter}`,
      },
    ]);
    expect(await chosen).toEqual(['inv-2', 'inv-3']);
  });

  it('shows a name beside an id but returns the ids', async () => {
    const terminal = new FakeTerminal();
    const chosen = promptInvigilators(
      [
        { value: 'inv-1', name: 'inv-1  Ines Varga' },
        { value: 'inv-2', name: 'inv-2' },
      ],
      terminal.io,
    );
    await terminal.play([{ expect: 'Ines Varga', keys: `${KEY.space}${KEY.enter}` }]);
    expect(await chosen).toEqual(['inv-1']);
  });
});

describe('promptInvigilatorIds (a target that cannot list them)', () => {
  it('refuses an empty answer, then splits on spaces and commas', async () => {
    const terminal = new FakeTerminal();
    const ids = promptInvigilatorIds('S-1', terminal.io);
    await terminal.play([
      { expect: 'to remove from S-1', keys: KEY.enter },
      { expect: 'give at least one user external id', keys: `inv-1, inv-2  inv-3${KEY.enter}` },
    ]);
    expect(await ids).toEqual(['inv-1', 'inv-2', 'inv-3']);
  });
});

describe('promptScheduleFields', () => {
  it('asks only the missing fields and re-asks a start without a zone', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(['StartDateTime', 'GroupName'], terminal.io, {
      AssessmentExtId: 'A-MATH-1',
      GroupExtId: 'H-NORTH',
    });
    await terminal.play([
      { expect: 'Start', keys: `2026-12-01T09:00:00${KEY.enter}` },
      { expect: 'has no time zone', keys: `${KEY.clearLine}2026-12-01T09:00:00Z${KEY.enter}` },
      { expect: 'Group name', keys: `North campus${KEY.enter}` },
    ]);
    expect(await fields).toEqual({ StartDateTime: '2026-12-01T09:00:00Z', GroupName: 'North campus' });
    expect(terminal.screen).not.toContain('Assessment external id');
  });

  it('with --timezone takes a local start (2027-01-25 14:00), re-asks one the clocks skip, and answers in UTC', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(
      ['StartDateTime'],
      terminal.io,
      { AssessmentExtId: 'A-MATH-1', GroupExtId: 'H-NORTH', GroupName: 'North' },
      { dates: { timeZone: 'Europe/Berlin' } },
    );
    await terminal.play([
      { expect: 'Start in Europe/Berlin', keys: `2027-03-28 02:30${KEY.enter}` },
      { expect: 'does not exist in Europe/Berlin', keys: `${KEY.clearLine}2027-01-25 14:00${KEY.enter}` },
    ]);
    expect(await fields).toEqual({ StartDateTime: '2027-01-25T13:00:00.000Z' });
  });

  it('with --date-format and --timezone takes the start as --start does (25.01.2027 14:00), and says the format', async () => {
    const parsed = parseDateFormat('DD.MM.YYYY HH:mm');
    if (!parsed.ok) throw new Error(parsed.message);
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(
      ['StartDateTime'],
      terminal.io,
      { AssessmentExtId: 'A-MATH-1', GroupExtId: 'H-NORTH', GroupName: 'North' },
      { dates: { format: parsed.format, timeZone: 'Europe/Berlin' } },
    );
    await terminal.play([
      { expect: 'Start in Europe/Berlin (e.g. 25.01.2027 14:00', keys: `31.04.2027 14:00${KEY.enter}` },
      { expect: 'is not a real date', keys: `${KEY.clearLine}25.01.2027 14:00${KEY.enter}` },
    ]);
    expect(await fields).toEqual({ StartDateTime: '2027-01-25T13:00:00.000Z' });
    expect(terminal.screen).not.toContain('--date-format');
  });

  it('rejects a group id outside letters, digits and dashes', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(['GroupExtId'], terminal.io);
    await terminal.play([
      { expect: 'Group (hierarchy) external id', keys: `H NORTH${KEY.enter}` },
      { expect: 'GroupExtId', keys: `${KEY.clearLine}H-NORTH${KEY.enter}` },
    ]);
    expect(await fields).toEqual({ GroupExtId: 'H-NORTH' });
  });
});

describe('confirmSend', () => {
  it('shows the summary and returns the answer', async () => {
    const terminal = new FakeTerminal();
    const summary = '3 users to remote https://exam.example.test';
    const yes = confirmSend(summary, terminal.io);
    await terminal.play([{ expect: 'Send now?', keys: `y${KEY.enter}` }]);
    expect(await yes).toBe(true);
    expect(terminal.screen).toContain(summary);
  });

  it('defaults to no', async () => {
    const terminal = new FakeTerminal();
    const answer = confirmSend('1 collection', terminal.io);
    await terminal.play([{ expect: 'Send now?', keys: KEY.enter }]);
    expect(await answer).toBe(false);
  });

  it('asks again on anything but y, yes, n, no or Enter: a school code typed into it is never a No', async () => {
    const terminal = new FakeTerminal();
    const answer = confirmSend('40 users to remote https://exam.example.test', terminal.io);
    await terminal.play([
      { expect: 'Send now? (y/N)', keys: `DEPT-ENG${KEY.enter}` },
      { expect: 'Answer y or n (Enter alone: no).', keys: `yesterday${KEY.enter}` },
      { expect: 'Answer y or n (Enter alone: no).', keys: ` YES ${KEY.enter}` },
    ]);
    expect(await answer).toBe(true);
    // Each refusal cleared the line: the answer taken is the last one typed, shown as Yes.
    expect(terminal.screen).toMatch(/Send now\? \(y\/N\) Yes\s*$/);
  });

  it.each([
    ['n', false],
    ['No', false],
    ['y', true],
    ['yes', true],
    ['', false],
  ])('takes %j as %s', async (typed, expected) => {
    const terminal = new FakeTerminal();
    const answer = confirmSend('1 collection', terminal.io);
    await terminal.play([{ expect: 'Send now?', keys: `${typed}${KEY.enter}` }]);
    expect(await answer).toBe(expected);
  });

  it('turns an abort (SIGINT elsewhere in the CLI) into InterruptedError', async () => {
    const terminal = new FakeTerminal();
    const controller = new AbortController();
    const answer = confirmSend('1 collection', { ...terminal.io, signal: controller.signal });
    await terminal.waitFor('Send now?');
    controller.abort();
    await expect(answer).rejects.toBeInstanceOf(InterruptedError);
  });
});
