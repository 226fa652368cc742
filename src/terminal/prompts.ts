/**
 * Interactive prompts (@inquirer/prompts 7) for values a command was not given, only when `promptsAllowed` says
 * so (docs/human.md, "When examctl asks"): on stderr, each answer checked at once.
 */
import { terminalLine, terminalLines } from '../formats/terminal-text.js';
import { promptClosed, promptOpened, promptsOffWords, type PromptWords } from './prompt-state.js';
import { Writable } from 'node:stream';
import { checkbox, input, password, search, select } from '@inquirer/prompts';
import type { AssessmentEntry, HierarchyEntry, ScheduleEntry } from '../port/local-directory.js';
import { roleRequiredProblem, validateUser } from '../domain/user.js';
import { validateCollection } from '../domain/collection.js';
import { validateInvigilatorRemoval } from '../domain/invigilators.js';
import { validateScheduleRequest } from '../domain/schedule.js';
import type { Problem } from '../domain/problem.js';
import { exampleDateTime, readTypedDateTime, type LocalTimeOptions } from '../domain/local-time.js';
import type { HierarchyMembership, UserRequest } from '../domain/types.js';
import { InterruptedError, UsageError } from '../system/errors.js';

/** Where prompts read keys and draw (default: stdin and stderr). */
interface PromptIo {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Aborting it ends the prompt like Ctrl-C (InterruptedError). */
  signal?: AbortSignal;
}

/** The usage error for a required value that was not given while prompts are off (`off`: what turned them off). */
export function missingValue(flag: string, off: string): UsageError {
  return new UsageError(`missing ${flag} (${promptsOffWords(off)})`);
}

/** Inquirer ends its output stream after each prompt: a wrapper takes that end, so the caller's stays usable. */
class KeepOpenOutput extends Writable {
  constructor(private readonly target: NodeJS.WritableStream) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.target.write(chunk, (error?: Error | null) => callback(error));
  }
  override _final(callback: (error?: Error | null) => void): void {
    callback();
  }
  get columns(): number | undefined {
    return (this.target as { columns?: number }).columns;
  }
  get rows(): number | undefined {
    return (this.target as { rows?: number }).rows;
  }
  get isTTY(): boolean | undefined {
    return (this.target as { isTTY?: boolean }).isTTY;
  }
}

async function ask<Config, T>(
  io: PromptIo,
  prompt: (config: Config, context: PromptIo & { clearPromptOnDone: boolean }) => Promise<T>,
  config: Config,
  words: PromptWords = { at: 'a prompt', outcome: 'nothing was sent' },
): Promise<T> {
  const context = { ...io, output: new KeepOpenOutput(io.output ?? process.stderr), clearPromptOnDone: false };
  const interrupted = `interrupted at ${words.at}: ${words.outcome}`;
  promptOpened(words);
  try {
    return await prompt(config, context);
  } catch (error) {
    // Matched by name: the error classes live in @inquirer/core, which is not our direct dependency.
    const exit = error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
    if (exit) throw new InterruptedError(interrupted, { cause: error, code: 'E1302' });
    throw error;
  } finally {
    promptClosed();
  }
}

/** The masked prompt on stderr (login's token, a PIN); `what` names it when the prompt is interrupted. */
export async function inquirerSecret(message: string, signal?: AbortSignal, what = 'token'): Promise<string> {
  return ask(
    { signal },
    password,
    { message, mask: true },
    { at: `the ${what} prompt`, outcome: 'nothing was changed' },
  );
}

/** A line of information between questions, on the prompts' stream (stderr in the CLI). */
function note(io: PromptIo, text: string): void {
  (io.output ?? process.stderr).write(`${terminalLines(text)}\n`);
}

/** A choice as the terminal shows it: its texts pass the terminal gate; its value is left exactly as it was. */
function shownChoice<Choice extends { name: string; description?: string; disabled?: string | boolean }>(
  choice: Choice,
): Choice {
  return {
    ...choice,
    name: terminalLine(choice.name),
    ...(choice.description === undefined ? {} : { description: terminalLine(choice.description) }),
    ...(typeof choice.disabled === 'string' ? { disabled: terminalLine(choice.disabled) } : {}),
  };
}

/** An input's default (a store title, an earlier answer) is shown through the gate; Enter still gives it exactly. */
const GATED_DEFAULT = { style: { defaultAnswer: (text: string) => `(${terminalLine(text)})` } };

function describeProblems(problems: readonly Problem[]): string {
  return problems
    .map((entry) => (entry.code === null ? entry.message : `${entry.message} (code ${entry.code})`))
    .join('; ');
}

/** `true` when the answer passes the rule's check, else its message; only problems `relevant` selects count. */
function verdict(
  result: { ok: true } | { ok: false; problems: Problem[] },
  relevant: (entry: Problem) => boolean,
): true | string {
  const found = result.ok ? [] : result.problems.filter(relevant);
  return found.length === 0 ? true : describeProblems(found);
}

/** A problem's field path names an answer: `Email`, `Schedule.GroupExtId`, `Hierarchies[0].ExternalId`... */
function atField(name: string): (entry: Problem) => boolean {
  return (entry) => {
    const field = entry.field.replace(/^Schedule\./, '');
    return field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`);
  };
}

interface PromptUserOptions {
  /** Role titles of the target's world; given, Role is a choice among them, else free text. */
  roles?: readonly string[];
  /** A user already on the target: its values are the defaults, and Role may stay as it is. */
  existing?: Partial<UserRequest>;
  /** A user by the external id just answered (local target): found, its values are the next defaults. */
  lookup?: (externalId: string) => Partial<UserRequest> | null | undefined;
  /** The target's hierarchies: a membership is picked among them (a hierarchy not there would fail with 131). */
  hierarchies?: readonly HierarchyEntry[];
  /** Correcting a failed send (offerCorrection): only the answers named are asked again, earlier ones as defaults. */
  correct?: { names: ReadonlySet<string>; answered: Record<string, unknown> };
}

type UserTextField = 'ExternalId' | 'FirstName' | 'LastName' | 'Email' | 'UserName';

const USER_TEXT_FIELDS: ReadonlyArray<{ name: UserTextField; message: string; optional: boolean }> = [
  { name: 'ExternalId', message: 'External id (letters, digits, - _ @)', optional: false },
  { name: 'FirstName', message: 'First name', optional: false },
  { name: 'LastName', message: 'Last name', optional: false },
  { name: 'Email', message: 'E-mail (optional)', optional: true },
  { name: 'UserName', message: 'User name (optional, no spaces)', optional: true },
];

const PERMISSION_CHOICES: ReadonlyArray<{ value: keyof HierarchyMembership; name: string }> = [
  { value: 'IsCoordinator', name: 'coordinator' },
  { value: 'IsAdministrator', name: 'administrator' },
  { value: 'HasViewReportsPermissions', name: 'view reports' },
  { value: 'HasReScoringPermissions', name: 're-scoring' },
];

function existingText(existing: Partial<UserRequest> | undefined, name: UserTextField | 'Role'): string | undefined {
  const value = existing?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Asks for one user's fields, returned raw (API names) for validateUser (docs/human.md, "When examctl asks"). */
export async function promptUser(options: PromptUserOptions = {}, io: PromptIo = {}): Promise<Record<string, unknown>> {
  const { correct } = options;
  const asked = (name: string): boolean => correct === undefined || correct.names.has(name);
  const answers: Record<string, unknown> = correct === undefined ? {} : { ...correct.answered };
  let existing = correct === undefined ? options.existing : (correct.answered as Partial<UserRequest>);

  for (const field of USER_TEXT_FIELDS) {
    if (!asked(field.name)) continue;
    delete answers[field.name];
    const fallback = existingText(existing, field.name);
    const value = await ask(io, input, {
      message: field.message,
      ...(fallback === undefined ? {} : { default: fallback, theme: GATED_DEFAULT }),
      validate: (raw: string) => {
        const text = raw.trim();
        if (text === '' && field.optional) return true;
        return verdict(validateUser({ ...answers, [field.name]: text }), atField(field.name));
      },
    });
    const text = value.trim();
    if (text !== '') answers[field.name] = text;
    if (field.name === 'ExternalId' && options.lookup !== undefined) {
      const found = options.lookup(text);
      if (found) {
        existing = found;
        const name = [found.FirstName, found.LastName]
          .filter((part) => typeof part === 'string' && part !== '')
          .join(' ');
        const role = typeof found.Role === 'string' ? `, ${found.Role}` : '';
        note(io, `${text} exists (${name}${role}): it will be updated; Enter keeps a shown value.`);
      } else {
        note(io, `${text} is new: it will be created.`);
      }
    }
  }

  if (asked('Role')) {
    // A corrected Role is asked afresh: the earlier answer is what the service refused.
    delete answers.Role;
    const role = await promptRole({ ...options, existing: correct === undefined ? existing : undefined }, answers, io);
    if (role !== undefined) answers.Role = role;
  }

  if (asked('Hierarchies')) {
    delete answers.Hierarchies;
    const hierarchies = await promptHierarchies(answers, io, options.hierarchies);
    if (hierarchies.length > 0) answers.Hierarchies = hierarchies;
  }
  return answers;
}

async function promptRole(
  options: PromptUserOptions,
  answers: Record<string, unknown>,
  io: PromptIo,
): Promise<string | undefined> {
  const current = existingText(options.existing, 'Role');
  const roles = options.roles ?? [];
  if (roles.length > 0) {
    const choices = roles.map((title) => ({ value: title, name: title }));
    if (current !== undefined && !roles.includes(current))
      choices.unshift({ value: current, name: `${current} (current)` });
    return ask(io, select, {
      message: 'Role',
      choices: choices.map(shownChoice),
      ...(current === undefined ? {} : { default: current }),
    });
  }
  const value = await ask(io, input, {
    message: current === undefined ? 'Role (title of an existing role)' : 'Role (empty keeps the current one)',
    validate: (raw: string) => {
      const text = raw.trim();
      if (text === '') return current === undefined ? describeProblems([roleRequiredProblem()]) : true;
      return verdict(validateUser({ ...answers, Role: text }), atField('Role'));
    },
  });
  const text = value.trim();
  return text === '' ? undefined : text;
}

async function promptHierarchies(
  answers: Record<string, unknown>,
  io: PromptIo,
  known?: readonly HierarchyEntry[],
): Promise<HierarchyMembership[]> {
  const memberships: HierarchyMembership[] = [];
  const question = () =>
    memberships.length === 0 ? 'Add a hierarchy membership?' : 'Add another hierarchy membership?';
  while (await askYesNo(io, question(), false)) {
    const atMembership = atField(`Hierarchies[${memberships.length}]`);
    const check = (raw: string): true | string => {
      const draft = { ...answers, Hierarchies: [...memberships, { ExternalId: raw.trim() }] };
      return verdict(validateUser(draft), (entry) => atMembership(entry) || entry.field === 'Hierarchies');
    };
    const externalId =
      known === undefined
        ? await ask(io, input, { message: 'Hierarchy external id', validate: check })
        : await pick(io, {
            message: 'Hierarchy',
            choices: known.map((entry) => hierarchyChoice(entry, 'no new memberships (code 1134)')),
            validate: check,
          });
    const granted = await ask(io, checkbox, {
      message: terminalLine(`Permissions in ${externalId.trim()} (space toggles, enter confirms)`),
      choices: PERMISSION_CHOICES,
    });
    const membership: HierarchyMembership = { ExternalId: externalId.trim() };
    for (const permission of granted) (membership as unknown as Record<string, unknown>)[permission] = true;
    memberships.push(membership);
  }
  return memberships;
}

export async function promptCollectionTitle(io: PromptIo = {}): Promise<string> {
  const title = await ask(io, input, {
    message: 'Collection title (at most 99 characters)',
    validate: (raw: string) => verdict(validateCollection({ Title: raw.trim() }), atField('Title')),
  });
  return title.trim();
}

/** A checkbox list of the schedule's invigilators (the caller refuses none); at least one ticked. */
export async function promptInvigilators(
  choices: ReadonlyArray<{ value: string; name: string }>,
  io: PromptIo = {},
): Promise<string[]> {
  return ask(io, checkbox, {
    message: 'Invigilators to remove (space toggles, enter confirms)',
    choices: choices.map(shownChoice),
    required: true,
  });
}

/** Free-text invigilator ids (a remote target cannot list them), spaces or commas between, checked as a file's are. */
export async function promptInvigilatorIds(scheduleExtId: string, io: PromptIo = {}): Promise<string[]> {
  const split = (raw: string): string[] => raw.split(/[\s,]+/).filter((id) => id !== '');
  const answer = await ask(io, input, {
    message: `Invigilator user external ids to remove from ${scheduleExtId} (separated by spaces or commas)`,
    validate: (raw: string) => {
      const ids = split(raw);
      if (ids.length === 0) return 'give at least one user external id (code 200)';
      return verdict(validateInvigilatorRemoval(scheduleExtId, ids), (entry) => entry.field.startsWith('UserExtIds'));
    },
  });
  return split(answer);
}

export type ScheduleFieldName = 'AssessmentExtId' | 'StartDateTime' | 'GroupExtId' | 'GroupName';

const SCHEDULE_FIELD_MESSAGES: Record<ScheduleFieldName, string> = {
  AssessmentExtId: 'Assessment external id',
  StartDateTime: 'Start (RFC 3339 with a zone, e.g. 2026-03-01T09:00:00Z)',
  GroupExtId: 'Group (hierarchy) external id for the candidates',
  GroupName: 'Group name',
};

/** What the local target knows, for pickers instead of free text (src/port/local-directory.ts). */
export interface StoreChoices {
  assessments?: readonly AssessmentEntry[];
  hierarchies?: readonly HierarchyEntry[];
}

interface ScheduleFieldsOptions {
  /** The local target's lists: assessment and group become searchable pickers. */
  choices?: StoreChoices;
  /** Earlier answers (a correction after a failed send): offered as defaults, Enter keeps them. */
  defaults?: Partial<Record<ScheduleFieldName, string>>;
  /** `--date-format`/`--timezone`: the start is read as `--start` is (readTypedDateTime). */
  dates?: LocalTimeOptions | undefined;
}

/**
 * Asks for the required schedule fields left out (docs/human.md, "When examctl asks"); `known` holds the
 * fields given, so rules that span fields see them.
 */
export async function promptScheduleFields(
  missing: readonly ScheduleFieldName[],
  io: PromptIo = {},
  known: Readonly<Record<string, unknown>> = {},
  options: ScheduleFieldsOptions = {},
): Promise<Partial<Record<ScheduleFieldName, string>>> {
  const answers: Partial<Record<ScheduleFieldName, string>> = {};
  const defaults: Partial<Record<ScheduleFieldName, string>> = { ...options.defaults };
  const dates = options.dates ?? {};
  const answerOf = (
    name: ScheduleFieldName,
    value: string,
  ): { ok: true; value: string } | { ok: false; message: string } =>
    name === 'StartDateTime' && value.trim() !== ''
      ? readTypedDateTime('StartDateTime', value, dates)
      : { ok: true, value: value.trim() };
  const startMessage =
    dates.timeZone !== undefined
      ? `Start in ${dates.timeZone} (e.g. ${exampleDateTime(dates)}, or with an offset)`
      : dates.format !== undefined
        ? `Start (e.g. ${exampleDateTime(dates)})`
        : SCHEDULE_FIELD_MESSAGES.StartDateTime;
  const check = (name: ScheduleFieldName, value: string): true | string => {
    const answer = answerOf(name, value);
    if (!answer.ok) return answer.message;
    const draft = { Schedule: { ...known, ...answers, [name]: answer.value }, Candidates: [] };
    return verdict(validateScheduleRequest(draft), atField(name));
  };
  const { assessments, hierarchies } = options.choices ?? {};
  for (const name of missing) {
    let value: string;
    const group = name === 'GroupExtId';
    const choices = group
      ? hierarchies?.map((entry) => hierarchyChoice(entry, 'an inactive group cannot take candidates'))
      : name === 'AssessmentExtId'
        ? assessments?.map(assessmentChoice)
        : undefined;
    if (choices !== undefined) {
      const validate = (id: string): true | string => check(name, id);
      value = await pick(io, {
        message: SCHEDULE_FIELD_MESSAGES[name],
        choices,
        current: defaults[name],
        validate,
        ...(group ? { allowNew: validate } : {}),
      });
      const existing = group ? hierarchies?.find((entry) => entry.id === value) : undefined;
      if (existing !== undefined && defaults.GroupName === undefined) defaults.GroupName = existing.title;
    } else {
      const fallback = defaults[name];
      value = await ask(io, input, {
        message: name === 'StartDateTime' ? startMessage : SCHEDULE_FIELD_MESSAGES[name],
        ...(fallback === undefined ? {} : { default: fallback, theme: GATED_DEFAULT }),
        validate: (raw: string) => check(name, raw),
      });
    }
    const answer = answerOf(name, value);
    answers[name] = answer.ok ? answer.value : value.trim();
  }
  return answers;
}

/** Picks one of the store's schedules (e.g. for `schedule links` or `invigilators remove` without an id). */
export async function promptSchedule(schedules: readonly ScheduleEntry[], io: PromptIo = {}): Promise<string> {
  if (schedules.length === 0)
    throw new UsageError('no schedules in the local store to choose from: give the ScheduleExtId');
  return pick(io, {
    message: 'Schedule',
    choices: schedules.map((entry) => ({
      value: entry.id,
      name: `${entry.id}  ${entry.title}`,
      description: `${entry.start.slice(0, 16).replace('T', ' ')} UTC · ${entry.candidates} ${entry.candidates === 1 ? 'candidate' : 'candidates'}${entry.archived ? ' · archived' : ''}`,
    })),
  });
}

/** A store entry offered by a picker; `disabled` says why it cannot be taken. */
interface PickChoice {
  value: string;
  name: string;
  description?: string;
  disabled?: string;
}

/** How many matches a picker lists at once: enough to scan, few enough to stay on one screen. */
const PICKER_MATCHES = 50;

function assessmentChoice(entry: AssessmentEntry): PickChoice {
  return {
    value: entry.id,
    name: `${entry.id}  ${entry.title}`,
    description: `${entry.duration} min${entry.proctored ? ', proctored' : ''}`,
  };
}

function hierarchyChoice(entry: HierarchyEntry, inactiveReason: string): PickChoice {
  const choice: PickChoice = { value: entry.id, name: `${entry.id}  ${entry.path}` };
  if (!entry.active) choice.disabled = `(inactive: ${inactiveReason})`;
  return choice;
}

/** The choices matching a typed term, ordered as docs/human.md, "When examctl asks" says; `allowNew`: a new id last. */
export function pickerMatches(
  choices: readonly PickChoice[],
  term: string | undefined,
  allowNew?: (id: string) => true | string,
): PickChoice[] {
  const typed = (term ?? '').trim();
  const needle = typed.toLowerCase();
  const ranked: { choice: PickChoice; rank: number }[] = [];
  for (const choice of choices) {
    const id = choice.value.toLowerCase();
    const rank =
      id === needle
        ? 0
        : id.startsWith(needle)
          ? 1
          : id.includes(needle) || choice.name.toLowerCase().includes(needle)
            ? 2
            : -1;
    if (rank >= 0) ranked.push({ choice, rank });
  }
  ranked.sort((a, b) => a.rank - b.rank);
  const shown = ranked.slice(0, PICKER_MATCHES).map((entry) => entry.choice);
  if (allowNew !== undefined && typed !== '' && !choices.some((choice) => choice.value === typed)) {
    const verdictOfNew = allowNew(typed);
    shown.push(
      verdictOfNew === true
        ? { value: typed, name: `${typed}  (new)` }
        : { value: typed, name: typed, disabled: `(${verdictOfNew})` },
    );
  }
  return shown;
}

async function pick(
  io: PromptIo,
  config: {
    message: string;
    choices: readonly PickChoice[];
    /** An earlier answer: listed first, so Enter keeps it. */
    current?: string | undefined;
    validate?: (id: string) => true | string;
    allowNew?: (id: string) => true | string;
  },
): Promise<string> {
  const { current } = config;
  const ordered =
    current === undefined
      ? config.choices
      : [
          ...config.choices.filter((choice) => choice.value === current),
          ...(config.choices.some((choice) => choice.value === current)
            ? []
            : [{ value: current, name: `${current}  (your earlier answer)` }]),
          ...config.choices.filter((choice) => choice.value !== current),
        ];
  return ask(io, search<string>, {
    message: `${config.message} ${config.allowNew === undefined ? '(type to search)' : '(type to search, or a new id)'}`,
    source: (term) => pickerMatches(ordered, term, config.allowNew).map(shownChoice),
    ...(config.validate === undefined ? {} : { validate: config.validate }),
    pageSize: 8,
  });
}

/** One answer the person gave, as `offerCorrection` lists it. */
interface GivenAnswer<Name extends string> {
  name: Name;
  label: string;
  value: string | undefined;
}

/** After a send from prompts failed: the answers to ask again (those the problems name ticked), or null. */
export async function offerCorrection<Name extends string>(
  answers: readonly GivenAnswer<Name>[],
  problems: readonly Problem[],
  io: PromptIo = {},
): Promise<Name[] | null> {
  const named = new Set(answers.filter((answer) => problems.some(atField(answer.name))).map((answer) => answer.name));
  if (named.size === 0) return null;
  // One line per problem, whatever line breaks the service put in its messages.
  note(
    io,
    `The send failed:\n${problems.map((entry) => terminalLine(`  ${entry.field || '-'} ${entry.code ?? '-'} ${entry.message}`)).join('\n')}`,
  );
  if (!(await askYesNo(io, 'Correct the answers and send again?', true))) return null;
  return ask(io, checkbox<Name>, {
    message: 'Answers to change (space toggles, enter confirms)',
    choices: answers.map((answer) =>
      shownChoice({
        value: answer.name,
        name: `${answer.label}: ${answer.value ?? '(empty)'}`,
        checked: named.has(answer.name),
      }),
    ),
    required: true,
  });
}

/** Shows what is about to be sent and asks to go on; the default is no. */
export async function confirmSend(summary: string, io: PromptIo = {}): Promise<boolean> {
  return askYesNo(io, terminalLines(`${summary}\nSend now?`), false);
}

/** y, yes, n, no (any case, spaces around), or Enter alone for the default; undefined for anything else. */
function yesNoAnswer(typed: string, defaultYes: boolean): boolean | undefined {
  const word = typed.trim().toLowerCase();
  if (word === '') return defaultYes;
  if (word === 'y' || word === 'yes') return true;
  if (word === 'n' || word === 'no') return false;
  return undefined;
}

/** A yes/no question that reads nothing else as an answer (docs/human.md, "When examctl asks"). */
async function askYesNo(io: PromptIo, message: string, defaultYes: boolean): Promise<boolean> {
  const typed = await ask(io, input, {
    message: `${message} (${defaultYes ? 'Y/n' : 'y/N'})`,
    theme: { validationFailureMode: 'clear' },
    validate: (value) =>
      yesNoAnswer(value, defaultYes) !== undefined || `Answer y or n (Enter alone: ${defaultYes ? 'yes' : 'no'}).`,
    transformer: (value, { isFinal }) => (isFinal ? (yesNoAnswer(value, defaultYes) ? 'Yes' : 'No') : value),
  });
  return yesNoAnswer(typed, defaultYes) ?? defaultYes;
}
