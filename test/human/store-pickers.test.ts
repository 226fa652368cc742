import { describe, expect, it } from 'vitest';
import {
  offerCorrection,
  pickerMatches,
  promptScheduleFields,
  promptSchedule,
  promptUser,
} from '../../src/terminal/prompts.js';
import { worldDirectory } from '../../src/engine/directory.js';
import { demoWorld } from '../engine/helpers.js';
import { FakeTerminal, KEY } from './fake-terminal.js';

const directory = worldDirectory(demoWorld());
const choices = { assessments: directory.assessments(), hierarchies: directory.hierarchies() };

describe('pickerMatches', () => {
  const entries = [
    { value: 'H-NORTH', name: 'H-NORTH  Root / North campus' },
    { value: 'H-NORTH-LAB', name: 'H-NORTH-LAB  Root / North campus / lab' },
    { value: 'X-NORTH', name: 'X-NORTH  Root / Elsewhere' },
    { value: 'H-SOUTH', name: 'H-SOUTH  Root / South campus' },
  ];
  it('ranks the exact id, then ids starting with the term, then any id or name containing it, ignoring case', () => {
    expect(pickerMatches(entries, 'h-north').map((c) => c.value)).toEqual(['H-NORTH', 'H-NORTH-LAB']);
    expect(pickerMatches(entries, 'x-').map((c) => c.value)).toEqual(['X-NORTH']);
    expect(pickerMatches(entries, 'north-lab').map((c) => c.value)).toEqual(['H-NORTH-LAB']);
    expect(pickerMatches([...entries].reverse(), 'H-NORTH').map((c) => c.value)).toEqual(['H-NORTH', 'H-NORTH-LAB']);
    expect(pickerMatches(entries, 'south').map((c) => c.value)).toEqual(['H-SOUTH']);
    expect(pickerMatches(entries, undefined)).toHaveLength(4);
  });
  it('offers a typed new id last when new ids are legal, or shows it disabled with the rule it breaks', () => {
    const allowNew = (id: string) => (/^[\w-]+$/.test(id) ? true : 'letters, digits and dashes only (code 110)');
    expect(pickerMatches(entries, 'H-NOR', allowNew).at(-1)).toEqual({ value: 'H-NOR', name: 'H-NOR  (new)' });
    expect(pickerMatches(entries, 'H NEW', allowNew)).toEqual([
      { value: 'H NEW', name: 'H NEW', disabled: '(letters, digits and dashes only (code 110))' },
    ]);
    expect(pickerMatches(entries, 'H-NORTH', allowNew).map((c) => c.value)).toEqual(['H-NORTH', 'H-NORTH-LAB']);
    expect(pickerMatches(entries, 'A-NOPE')).toEqual([]);
  });
});

describe('schedule fields from the store', () => {
  it('picks the assessment by searching, a new group by typing its id, and asks its name', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(
      ['AssessmentExtId', 'StartDateTime', 'GroupExtId', 'GroupName'],
      terminal.io,
      {},
      { choices },
    );
    await terminal.play([
      { expect: 'Assessment external id (type to search)', keys: 'phys' },
      { expect: 'A-PHYS-2  Physics 2', keys: KEY.enter },
      { expect: 'Start', keys: `2026-12-20T09:00:00Z${KEY.enter}` },
      { expect: 'Group (hierarchy) external id for the candidates (type to search, or a new id)', keys: 'H-DEC-2026' },
      { expect: 'H-DEC-2026  (new)', keys: KEY.enter },
      { expect: 'Group name', keys: `December group${KEY.enter}` },
    ]);
    expect(await fields).toEqual({
      AssessmentExtId: 'A-PHYS-2',
      StartDateTime: '2026-12-20T09:00:00Z',
      GroupExtId: 'H-DEC-2026',
      GroupName: 'December group',
    });
  });

  it('an assessment the store does not have is not offered at all: A-NOPE finds nothing', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(['AssessmentExtId'], terminal.io, {}, { choices });
    await terminal.play([
      { expect: 'Assessment external id', keys: 'A-NOPE' },
      { expect: 'No results', keys: `${'\u007f'.repeat(6)}math` },
      { expect: 'A-MATH-1', keys: KEY.enter },
    ]);
    expect(await fields).toEqual({ AssessmentExtId: 'A-MATH-1' });
  });

  it('an existing group: its title becomes the name default, and an inactive one cannot be picked', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(
      ['GroupExtId', 'GroupName'],
      terminal.io,
      { AssessmentExtId: 'A-MATH-1' },
      { choices },
    );
    await terminal.play([
      { expect: 'Group (hierarchy) external id', keys: 'H-OLD' },
      { expect: 'inactive', keys: `${'\u007f'.repeat(5)}H-NORTH-LAB` },
      { expect: 'North campus - computer lab', keys: KEY.enter },
      { expect: 'Group name', keys: KEY.enter },
    ]);
    expect(await fields).toEqual({ GroupExtId: 'H-NORTH-LAB', GroupName: 'North campus - computer lab' });
  });

  it('earlier answers are defaults: Enter keeps them', async () => {
    const terminal = new FakeTerminal();
    const fields = promptScheduleFields(
      ['AssessmentExtId', 'StartDateTime'],
      terminal.io,
      {},
      {
        choices,
        defaults: { AssessmentExtId: 'A-LAW-EXAM', StartDateTime: '2026-12-01T09:00:00Z' },
      },
    );
    await terminal.play([
      { expect: 'A-LAW-EXAM', keys: KEY.enter },
      { expect: 'Start', keys: KEY.enter },
    ]);
    expect(await fields).toEqual({ AssessmentExtId: 'A-LAW-EXAM', StartDateTime: '2026-12-01T09:00:00Z' });
  });
});

describe('promptSchedule and memberships', () => {
  it('picks a schedule by its title', async () => {
    const terminal = new FakeTerminal();
    const picked = promptSchedule(directory.schedules(), terminal.io);
    await terminal.play([
      { expect: 'Schedule (type to search)', keys: 'contract' },
      { expect: 'S-LIVE', keys: KEY.enter },
    ]);
    expect(await picked).toBe('S-LIVE');
  });

  it('a user membership is picked among the hierarchies', async () => {
    const terminal = new FakeTerminal();
    const user = promptUser({ roles: directory.roleTitles(), hierarchies: choices.hierarchies }, terminal.io);
    await terminal.play([
      { expect: 'External id', keys: `u-1${KEY.enter}` },
      { expect: 'First name', keys: `Ann${KEY.enter}` },
      { expect: 'Last name', keys: `Lee${KEY.enter}` },
      { expect: 'E-mail', keys: KEY.enter },
      { expect: 'User name', keys: KEY.enter },
      { expect: 'Role', keys: KEY.enter },
      { expect: 'Add a hierarchy membership?', keys: `y${KEY.enter}` },
      { expect: 'Hierarchy (type to search)', keys: 'south' },
      { expect: 'H-SOUTH  Root / South campus', keys: KEY.enter },
      { expect: 'Permissions in H-SOUTH', keys: KEY.enter },
      { expect: 'Add another hierarchy membership?', keys: KEY.enter },
    ]);
    expect((await user).Hierarchies).toEqual([{ ExternalId: 'H-SOUTH' }]);
  });
});

describe('offerCorrection', () => {
  const answers = [
    { name: 'AssessmentExtId' as const, label: 'Assessment', value: 'A-NOPE' },
    { name: 'StartDateTime' as const, label: 'Start', value: '2026-12-01T09:00:00Z' },
    { name: 'GroupExtId' as const, label: 'Group', value: 'H-1' },
  ];

  it('shows the problems and returns the answers to ask again, those named by a problem ticked', async () => {
    const terminal = new FakeTerminal();
    const fields = offerCorrection(
      answers,
      [{ field: 'Schedule.AssessmentExtId', code: 1001, message: 'Assessment not found' }],
      terminal.io,
    );
    await terminal.play([
      { expect: 'Schedule.AssessmentExtId 1001 Assessment not found', keys: '' },
      { expect: 'Correct the answers and send again?', keys: KEY.enter },
      { expect: 'Answers to change', keys: `${KEY.down}${KEY.space}${KEY.enter}` },
    ]);
    expect(await fields).toEqual(['AssessmentExtId', 'StartDateTime']);
  });

  it('declined, or no problem about an answer: null, nothing asked', async () => {
    const terminal = new FakeTerminal();
    const declined = offerCorrection(
      answers,
      [{ field: 'Schedule.GroupExtId', code: 1134, message: 'inactive' }],
      terminal.io,
    );
    await terminal.play([{ expect: 'send again?', keys: `n${KEY.enter}` }]);
    expect(await declined).toBeNull();
    const quiet = new FakeTerminal();
    expect(
      await offerCorrection(answers, [{ field: 'Schedule.Owner', code: null, message: 'Scheduler not set' }], quiet.io),
    ).toBeNull();
    expect(quiet.screen).toBe('');
  });
});
