import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The contract scenario: every operation of the API with successes and failures, run as CLI
 * commands. It is target-blind: `cli` runs examctl with the target flags already chosen, so
 * the same steps run against the local engine and through the remote client + `local serve`.
 */

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type CliRunner = (argv: string[]) => Promise<CliResult>;

export interface StepResult {
  step: string;
  code: number;
  /** The --json document, masked (see `mask`). */
  document: unknown;
}

/** The engine clock of both targets: S-LIVE is activated (not finished), S-PAST finished, S-FUTURE not started. */
export const SCENARIO_NOW = '2026-11-21T10:00:00Z';

const candidates = (prefix: string, n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({
    CandidateExtId: `${prefix}-${i + 1}`,
    FirstName: 'Cand',
    LastName: `Number${i + 1}`,
    Email: `${prefix}-${i + 1}@students.example.test`,
    ...extra,
  }));

const scheduleRequests = [
  // new, with a new group under the schedule's hierarchy
  {
    Schedule: {
      ScheduleExtId: 'S-NEW-1',
      AssessmentExtId: 'A-MATH-1',
      Title: 'Maths December',
      StartDateTime: '2026-12-01T09:00:00Z',
      GroupExtId: 'H-DEC',
      GroupName: 'December group',
    },
    Candidates: candidates('cn', 2),
  },
  // new, no ScheduleExtId: the service generates one (masked)
  {
    Schedule: {
      AssessmentExtId: 'A-MATH-1',
      StartDateTime: '2026-12-02T09:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cg', 1),
  },
  // duplicate of a stored schedule without Upsert
  {
    Schedule: {
      ScheduleExtId: 'S-FUTURE',
      AssessmentExtId: 'A-PHYS-2',
      Title: 'Physics again',
      StartDateTime: '2026-12-10T09:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Workflow: 'EXTERNAL_ATTEMPTS',
    Candidates: candidates('cd', 1, { AttemptExtId: 'at-d' }),
  },
  // span rule: End - Start must exceed duration (90) + extra (0)
  {
    Schedule: {
      ScheduleExtId: 'S-SPAN',
      AssessmentExtId: 'A-MATH-1',
      StartDateTime: '2026-12-03T09:00:00Z',
      EndDateTime: '2026-12-03T10:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cs', 1),
  },
  // inactive hierarchy as the group
  {
    Schedule: {
      ScheduleExtId: 'S-OLDGROUP',
      AssessmentExtId: 'A-MATH-1',
      StartDateTime: '2026-12-04T09:00:00Z',
      GroupExtId: 'H-OLD',
      GroupName: 'Closed campus',
    },
    Candidates: candidates('co', 1),
  },
  // inactive hierarchy as the schedule's hierarchy
  {
    Schedule: {
      ScheduleExtId: 'S-OLDSG',
      AssessmentExtId: 'A-MATH-1',
      StartDateTime: '2026-12-04T09:00:00Z',
      ScheduleGroupExtId: 'H-OLD',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cq', 1),
  },
  // EXTERNAL_ATTEMPTS with AttemptExtIds: ok
  {
    Schedule: {
      ScheduleExtId: 'S-EXT',
      AssessmentExtId: 'A-PHYS-2',
      StartDateTime: '2026-12-05T09:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Workflow: 'EXTERNAL_ATTEMPTS',
    Candidates: candidates('ce', 2).map((c, i) => ({ ...c, AttemptExtId: `att-${i}` })),
  },
  // EXTERNAL_ATTEMPTS with a candidate lacking AttemptExtId: refused
  {
    Schedule: {
      ScheduleExtId: 'S-EXT-BAD',
      AssessmentExtId: 'A-PHYS-2',
      StartDateTime: '2026-12-05T09:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Workflow: 'EXTERNAL_ATTEMPTS',
    Candidates: candidates('cx', 1),
  },
  // unknown assessment
  {
    Schedule: {
      ScheduleExtId: 'S-NOASSESS',
      AssessmentExtId: 'A-NOPE',
      StartDateTime: '2026-12-05T09:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cy', 1),
  },
];

const upsertRequests = [
  // update of a schedule not yet activated: ok, the candidates are added
  {
    Schedule: {
      ScheduleExtId: 'S-NEW-1',
      AssessmentExtId: 'A-MATH-1',
      Title: 'Maths December (moved)',
      StartDateTime: '2026-12-01T10:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cn', 3),
  },
  // update of an activated schedule: refused
  {
    Schedule: {
      ScheduleExtId: 'S-LIVE',
      AssessmentExtId: 'A-LAW-EXAM',
      Title: 'Law moved',
      StartDateTime: '2026-11-21T08:00:00Z',
      EndDateTime: '2026-11-21T18:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cl', 1),
  },
  // upsert of a new id creates it
  {
    Schedule: {
      ScheduleExtId: 'S-NEW-2',
      AssessmentExtId: 'A-LANG-QUIZ',
      StartDateTime: '2026-12-06T09:00:00Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
    },
    Candidates: candidates('cz', 1),
  },
];

const users = [
  // create
  {
    ExternalId: 'u-new-1',
    UserName: 'u.new.1',
    FirstName: 'Nia',
    LastName: 'Okafor',
    Email: 'nia@example.test',
    Role: 'Candidate',
    Hierarchies: [{ ExternalId: 'H-NORTH' }],
  },
  // update (no Role needed)
  { ExternalId: 'c-1001', FirstName: 'Adaline', LastName: 'Moreno', Email: 'ada.moreno@students.example.test' },
  // 214: the UserName of another user
  {
    ExternalId: 'u-new-2',
    UserName: 'jdoe',
    FirstName: 'Jo',
    LastName: 'Doe',
    Email: 'jo@example.test',
    Role: 'Author',
  },
  // 233: a create colliding case-insensitively with c-1002
  { ExternalId: 'C-1002', FirstName: 'Case', LastName: 'Clash', Email: 'clash@example.test', Role: 'Candidate' },
  // GroupErrors 131 / 133 / 1134: saved, partial
  {
    ExternalId: 'u-new-3',
    FirstName: 'Gus',
    LastName: 'Groups',
    Email: 'gus@example.test',
    Role: 'Author',
    Hierarchies: [
      { ExternalId: 'H-NOPE' },
      { ExternalId: 'root', IsAdministrator: true },
      { ExternalId: 'H-OLD' },
      { ExternalId: 'H-SOUTH', IsCoordinator: true },
    ],
  },
  // local validation: bad e-mail (209), same in both
  { ExternalId: 'u-new-4', FirstName: 'Bad', LastName: 'Mail', Email: 'not-an-email', Role: 'Candidate' },
  // unknown role (241)
  { ExternalId: 'u-new-5', FirstName: 'No', LastName: 'Role', Email: 'norole@example.test', Role: 'Wizard' },
];

const collections = [
  {
    ExternalId: 'colok1',
    Title: 'Fine',
    Taxonomies: [{ ExternalId: 'TX-BLOOM' }],
    ObjectiveRepositories: [{ ExternalId: 'LO-CORE' }],
  },
  { Title: 'Generated id' },
  { ExternalId: 'col806', Title: 'Unknown owner', Owner: 'nobody' },
  { ExternalId: 'col808', Title: 'Owner cannot view collections', Owner: 'jdoe' },
  { ExternalId: 'mathcore2026', Title: 'Taken id' },
  { ExternalId: 'col900', Title: 'Unknown taxonomy', Taxonomies: [{ ExternalId: 'TX-NOPE' }] },
  { ExternalId: 'col1000', Title: 'Unknown repository', ObjectiveRepositories: [{ ExternalId: 'LO-NOPE' }] },
  { ExternalId: 'col1001', Title: 'Not a repository', ObjectiveRepositories: [{ ExternalId: 'LO-ALGEBRA-1' }] },
  { ExternalId: 'col1002', Title: 'Unpublished', ObjectiveRepositories: [{ ExternalId: 'LO-DRAFT' }] },
  { ExternalId: 'col1003', Title: 'No access', ObjectiveRepositories: [{ ExternalId: 'LO-PRIVATE' }] },
];

/** Writes the scenario's input files into `dir`. */
export async function writeScenarioFiles(dir: string): Promise<void> {
  await writeFile(join(dir, 'schedules.json'), JSON.stringify(scheduleRequests, null, 1));
  await writeFile(join(dir, 'upserts.json'), JSON.stringify(upsertRequests, null, 1));
  await writeFile(join(dir, 'users.json'), JSON.stringify(users, null, 1));
  await writeFile(join(dir, 'collections.json'), JSON.stringify(collections, null, 1));
}

/** Runs every step in order (later steps see earlier changes) and returns their masked documents. */
export async function runScenario(cli: CliRunner, dir: string): Promise<StepResult[]> {
  const steps: Array<[string, string[]]> = [
    [
      'schedule push (new, duplicate, span, inactive, workflows)',
      ['schedule', 'push', '--file', join(dir, 'schedules.json')],
    ],
    [
      'schedule push --upsert (update, activated, new)',
      ['schedule', 'push', '--upsert', '--file', join(dir, 'upserts.json')],
    ],
    ['schedule push again: duplicates', ['schedule', 'push', '--file', join(dir, 'upserts.json')]],
    ['user sync', ['user', 'sync', '--file', join(dir, 'users.json')]],
    ['collection add', ['collection', 'add', '--file', join(dir, 'collections.json')]],
    ['invigilators remove (ok, 319 failed)', ['invigilators', 'remove', 'S-FUTURE', 'inv-1', 'c-1001']],
    ['invigilators remove (301)', ['invigilators', 'remove', 'S-NOPE', 'inv-1']],
    ['invigilators remove (302 archived)', ['invigilators', 'remove', 'S-ARCHIVED', 'inv-2']],
    ['invigilators remove (305 finished)', ['invigilators', 'remove', 'S-PAST', 'inv-1']],
    ['review-session show (ok)', ['review-session', 'show', 'RS-MATH1-OCT']],
    ['review-session show (1101)', ['review-session', 'show', 'RS-NOPE']],
  ];
  const results: StepResult[] = [];
  for (const [step, argv] of steps) {
    const { code, stdout, stderr } = await cli([...argv, '--json']);
    let document: unknown;
    try {
      document = JSON.parse(stdout);
    } catch {
      throw new Error(`${step}: stdout is not one JSON document (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
    }
    results.push({ step, code, document: mask(document) });
  }
  return results;
}

// The engine's generated ids (engine.ts): collections 16 lowercase letters/digits, schedules S- and 20 hex digits.
const GENERATED = /^[a-z0-9]{16}$/;

/**
 * What may differ between targets: the target description, timestamps, ids the service
 * generates, `action` and the summary's counts by it (the local engine says what it did; a
 * remote server does not, and the sync memory decides: docs/sync.md, "Created or updated") and the
 * remote client's retry counts (`retried`, `retriedByCause`: the engine is never retried).
 */
const ACTION_COUNTS: ReadonlySet<string> = new Set([
  'created',
  'updated',
  'unchanged',
  'sent',
  'disabled',
  'removed',
  'left',
]);

export function mask(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((entry) => mask(entry, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      // A remote run's token source (tokenFrom): the local engine needs no token.
      if (k === 'action' || k === 'retried' || k === 'retriedByCause' || k === 'tokenFrom') continue;
      // The summary's counts by action (and `actions`): the sync memory decides a remote answer's (`sent` without one).
      if (key === 'summary' && (ACTION_COUNTS.has(k) || k === 'actions')) continue;
      if (k === 'target' || k === 'targetFrom') {
        out[k] = '<target>';
        continue;
      }
      // Each run's journal id is its own.
      if (k === 'run' && typeof v === 'string') {
        out[k] = '<run>';
        continue;
      }
      out[k] = mask(v, k);
    }
    return out;
  }
  if (typeof value === 'string') {
    if (/^(started|finished|generated|created)(At)?$/i.test(key) && !Number.isNaN(Date.parse(value))) return '<time>';
    if (key === 'id' && (GENERATED.test(value) || /^[0-9a-f-]{36}$/i.test(value) || /^S-[0-9A-F]{20}$/.test(value)))
      return '<generated>';
    if (/^https?:\/\/127\.0\.0\.1:\d+/.test(value)) return '<url>';
  }
  return value;
}
