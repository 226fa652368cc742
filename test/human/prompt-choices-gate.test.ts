import { describe, expect, it } from 'vitest';
import {
  confirmSend,
  promptInvigilators,
  promptSchedule,
  promptScheduleFields,
  promptUser,
} from '../../src/terminal/prompts.js';
import { FakeTerminal, KEY } from './fake-terminal.js';

/**
 * Issue 22 (terminals): what a prompt shows from the store or the service (role titles,
 * hierarchy paths, schedule titles, an existing user's values as defaults) passes the terminal
 * gate, so a title holding ESC [2J cannot clear the screen nor a BEL ring; the value the command
 * gets is the store's own, untouched.
 */

const CLEAR = '\u001b[2J';
const BEL = '\u0007';

/** No byte of the planted sequences reached the terminal (inquirer draws with ESC [ ... of its own, never these). */
function expectGated(terminal: FakeTerminal): void {
  expect(terminal.output.raw).not.toContain(CLEAR);
  expect(terminal.output.raw).not.toContain(BEL);
  expect(terminal.output.raw).not.toContain('\u001b]52');
}

describe('prompt choices built from store data pass the terminal gate', () => {
  it('role titles and the current role: shown gated, the chosen title returned exactly', async () => {
    const terminal = new FakeTerminal();
    const evil = `Boss${CLEAR}${BEL}`;
    const answers = promptUser(
      {
        roles: ['Candidate', evil],
        existing: { ExternalId: 'u-1', FirstName: `Ann${BEL}`, LastName: 'Lee', Role: `Old${CLEAR}` },
      },
      terminal.io,
    );
    await terminal.play([
      { expect: 'External id', keys: KEY.enter },
      // An existing user's value is the default: shown gated.
      { expect: '(Ann?)', keys: `Ann${KEY.enter}` },
      { expect: 'Last name', keys: KEY.enter },
      { expect: 'E-mail', keys: KEY.enter },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Boss?[2J?', keys: `${KEY.down}${KEY.down}${KEY.enter}` },
      { expect: 'Add a hierarchy membership?', keys: `n${KEY.enter}` },
    ]);
    expect((await answers).Role).toBe(evil);
    expect(terminal.screen).toContain('Old?[2J (current)');
    expectGated(terminal);
  });

  it('hierarchy paths in the group picker and a group title as the name default: shown gated, the id returned exactly', async () => {
    const terminal = new FakeTerminal();
    const hierarchies = [
      { id: 'H-EVIL', title: `Evil${CLEAR}`, path: `Root / Evil${CLEAR}${BEL}`, active: true, root: false },
    ];
    const fields = promptScheduleFields(['GroupExtId', 'GroupName'], terminal.io, {}, { choices: { hierarchies } });
    await terminal.play([
      { expect: 'H-EVIL  Root / Evil?[2J?', keys: KEY.enter },
      { expect: '(Evil?[2J)', keys: `Evil group${KEY.enter}` },
    ]);
    expect(await fields).toEqual({ GroupExtId: 'H-EVIL', GroupName: 'Evil group' });
    expectGated(terminal);
  });

  it('schedule titles, invigilator names and a confirmation summary: shown gated', async () => {
    const terminal = new FakeTerminal();
    const osc52 = '\u001b]52;c;aGVsbG8=\u0007';
    const picked = promptSchedule(
      [
        {
          id: 'S-1',
          title: `Exam${osc52}`,
          start: '2026-12-01T09:00:00Z',
          archived: false,
          candidates: 1,
        },
      ],
      terminal.io,
    );
    await terminal.play([{ expect: 'S-1  Exam?]52;c;aGVsbG8=?', keys: KEY.enter }]);
    expect(await picked).toBe('S-1');

    const chosen = promptInvigilators([{ value: `u-${BEL}`, name: `Ann Lee${CLEAR}` }], terminal.io);
    await terminal.play([{ expect: 'Ann Lee?[2J', keys: `${KEY.space}${KEY.enter}` }]);
    expect(await chosen).toEqual([`u-${BEL}`]);

    const confirmed = confirmSend(`user sync: 2 records to send to remote https://x${CLEAR}`, terminal.io);
    await terminal.play([{ expect: 'https://x?[2J', keys: `y${KEY.enter}` }]);
    expect(await confirmed).toBe(true);
    expectGated(terminal);
  });
});
