import { z } from 'zod';
import type { ReviewSession } from './types.js';
import { HIERARCHY_TABLE, USER_FIELDS_NOT_IN_VIEW, USER_TABLE } from './user.js';
import { CANDIDATE_TABLE, SCHEDULE_TABLE, WORKFLOWS } from './schedule.js';
import { wireOf, type FieldRule, type RuleTable } from './field-rules.js';
import { normaliseGuid } from './text-rules.js';
import { parseDateTime } from './date-time.js';

/** The world file (docs/cli-contract.md, "World file"): strict, but review sessions are kept as the API gives them. */

const instant = z.string().refine((value) => parseDateTime(value).ok, {
  message: 'must be an RFC 3339 date-time with a zone (e.g. 2026-11-21T09:00:00.000Z)',
});
const nonEmpty = z.string().min(1);
const optionalString = z.string().optional();

/** `Given`, then the other fields of a rule table but `Omitted`, each optional, typed by its rule. */
type StoredFields<Rule extends FieldRule, Given, Omitted extends string> = Given & {
  [R in Rule as R['name'] extends keyof Given | Omitted ? never : R['name']]: z.ZodOptional<
    z.ZodType<R extends FieldRule<string, infer Value> ? Value : never>
  >;
};

/**
 * A stored record's fields (the table is their one declaration): those `given` first, then the table's others
 * but `omitted`, each its rule's kind of value without the request's limits (text, yes/no, a whole number, a list of
 * texts, or the rule's own values: a candidate's SpecialNeeds "true"/"false").
 */
function storedFields<
  Rule extends FieldRule,
  const Given extends Record<string, z.ZodType>,
  Omitted extends string = never,
>(table: RuleTable<Rule>, given: Given, omitted: readonly Omitted[] = []): StoredFields<Rule, Given, Omitted> {
  const shape: Record<string, z.ZodType> = { ...given };
  for (const rule of table.rules) {
    if (rule.name in shape || (omitted as readonly string[]).includes(rule.name)) continue;
    const wire = wireOf(z, rule);
    const kinds: Record<string, z.ZodType> = {
      boolean: z.boolean(),
      number: z.number().int(),
      array: z.array(z.string()),
      enum: wire,
    };
    shape[rule.name] = (kinds[wire.def.type] ?? z.string()).optional();
  }
  return shape as StoredFields<Rule, Given, Omitted>;
}

/** A stored API token, the only form the store keeps (docs/engine-rules.md, "API tokens"). */
const API_TOKEN_DIGEST = /^sha256:[0-9a-f]{64}$/i;

export function isApiTokenDigest(value: string): boolean {
  return API_TOKEN_DIGEST.test(value);
}

const apiToken = nonEmpty.refine((value) => !/^sha256:/i.test(value) || isApiTokenDigest(value), {
  message: 'a token starting with "sha256:" must be a digest: sha256: and 64 hex digits',
});

export const WorldSettingsSchema = z.strictObject({
  SiteUrl: z.url({ protocol: /^https?$/ }),
  /** UserName of the default owner of schedules and collections; absent means "Scheduler not set". */
  ExternalApiOwner: z.string().min(1).nullable().optional(),
  /** Tokens `local serve` accepts (`Authorization: EAPI <token>`): plain, or a digest (`sha256:<hex>`) as stored. */
  ApiTokens: z.array(apiToken),
  DefaultProctoringTemplate: z.string().min(1).nullable().optional(),
  /** Base address of the proctoring provider, for candidates' LaunchUrl. */
  ProctoringProviderUrl: z.url({ protocol: /^https?$/ }).optional(),
});

export const WorldRoleSchema = z.strictObject({
  Title: nonEmpty,
  Participate: z.boolean(),
});

/** A stored membership: the hierarchy table's fields but Action, which only a request carries. */
export const WorldMembershipSchema = z.strictObject(
  storedFields(HIERARCHY_TABLE, { ExternalId: nonEmpty }, ['Action']),
);

/** The stored user (its table's fields but the password), its permissions, memberships with flags, password hash. */
export const WorldUserSchema = z.strictObject({
  ...storedFields(
    USER_TABLE,
    {
      ExternalId: nonEmpty,
      UserName: nonEmpty,
      FirstName: z.string(),
      LastName: z.string(),
      Email: optionalString,
      Role: nonEmpty,
    },
    USER_FIELDS_NOT_IN_VIEW,
  ),
  /** Platform permissions the API's owner checks read. */
  CanManageSchedules: z.boolean().optional(),
  CanViewCollections: z.boolean().optional(),
  /** Hierarchy memberships with their permission flags. */
  Hierarchies: z.array(WorldMembershipSchema).optional(),
  /** `scrypt$N=..,r=..,p=..$<salt>$<key>` (base64url); never a plain password. */
  PasswordHash: z
    .string()
    .regex(/^scrypt\$N=\d+,r=\d+,p=\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/)
    .optional(),
});

export const WorldHierarchySchema = z.strictObject({
  ExternalId: nonEmpty,
  Title: z.string(),
  /** Absent on the root hierarchy (at most one). */
  Parent: z.string().min(1).optional(),
  Active: z.boolean(),
});

export const WorldAssessmentSchema = z.strictObject({
  ExternalId: nonEmpty,
  Title: z.string(),
  Code: optionalString,
  /** Duration in minutes. */
  MaxTimePerAttempt: z.number().int().nonnegative(),
  /** Extra time in minutes. */
  ExtraTime: z.number().int().nonnegative(),
  UseProctoringService: z.boolean(),
});

export const WorldProctoringTemplateSchema = z.strictObject({
  ExternalId: nonEmpty,
  Title: optionalString,
});

export const WorldTaxonomySchema = z.strictObject({
  ExternalId: nonEmpty,
  Title: z.string(),
});

export const WorldLoRepositorySchema = z.strictObject({
  ExternalId: nonEmpty,
  Title: z.string(),
  /** False for a learning objective that is not a repository (code 1001). */
  IsRepository: z.boolean(),
  Published: z.boolean(),
  /** UserNames that may use the repository (code 1003 for an owner not listed). */
  AccessUserNames: z.array(nonEmpty),
});

/** A registered candidate's request fields as stored: the candidate table's, less the password. */
export const WorldCandidateSchema = z.strictObject({
  ...storedFields(
    CANDIDATE_TABLE,
    { CandidateExtId: nonEmpty, FirstName: z.string(), LastName: z.string(), Email: z.string() },
    ['Password'],
  ),
  /** Generated by the engine when the candidate is registered. */
  StartupLink: z.url(),
  LaunchUrl: z.url().optional(),
});

/** A stored schedule: the schedule table's fields, its id and end always set. */
export const WorldScheduleSchema = z.strictObject({
  ...storedFields(SCHEDULE_TABLE, {
    ScheduleExtId: nonEmpty,
    AssessmentExtId: nonEmpty,
    Title: z.string(),
    StartDateTime: instant,
    EndDateTime: instant,
    GroupExtId: nonEmpty,
    GroupName: z.string(),
  }),
  Workflow: z.enum(WORKFLOWS),
  Archived: z.boolean(),
  /** External ids of the invigilator users. */
  Invigilators: z.array(nonEmpty),
  Candidates: z.array(WorldCandidateSchema),
});

export const IdTitleSchema = z.strictObject({ ExternalId: nonEmpty, Title: optionalString });

export const WorldCollectionSchema = z.strictObject({
  ExternalId: nonEmpty,
  Title: z.string(),
  Owner: nonEmpty,
  Taxonomies: z.array(IdTitleSchema),
  ObjectiveRepositories: z.array(IdTitleSchema),
});

/** Kept exactly as the API returns it; only the id and the results list are required. */
export const WorldReviewSessionSchema = z.looseObject({
  ExternalId: nonEmpty,
  Results: z.array(z.looseObject({})),
});

const WorldObjectSchema = z.strictObject({
  Settings: WorldSettingsSchema,
  Roles: z.array(WorldRoleSchema),
  Users: z.array(WorldUserSchema),
  Hierarchies: z.array(WorldHierarchySchema),
  Assessments: z.array(WorldAssessmentSchema),
  ProctoringTemplates: z.array(WorldProctoringTemplateSchema),
  Taxonomies: z.array(WorldTaxonomySchema),
  LoRepositories: z.array(WorldLoRepositorySchema),
  Schedules: z.array(WorldScheduleSchema),
  ReviewSessions: z.array(WorldReviewSessionSchema),
  Collections: z.array(WorldCollectionSchema),
});

type WorldList = Exclude<keyof z.infer<typeof WorldObjectSchema>, 'Settings'>;

/** Keys unique within each list (the store's entity keys; the engine's user indexes, case-insensitive). */
const UNIQUE_KEYS: readonly (readonly [WorldList, string, ((key: string) => string)?, string?])[] = [
  ['Roles', 'Title'],
  ['Hierarchies', 'ExternalId'],
  ['Assessments', 'ExternalId'],
  ['ProctoringTemplates', 'ExternalId'],
  ['Taxonomies', 'ExternalId'],
  ['LoRepositories', 'ExternalId'],
  ['Schedules', 'ScheduleExtId'],
  ['ReviewSessions', 'ExternalId'],
  ['Collections', 'ExternalId'],
  ['Users', 'UserName', (key) => key.toLowerCase()],
  ['Users', 'ExternalId', (key) => key.toLowerCase(), ' (user ids are compared ignoring case)'],
  ['Users', 'SynchronizationKey', normaliseGuid, ' (keys compare ignoring case and braces)'],
];

/** Fields naming another list's entry: list, field, the list named, its key, the entry's kind. */
const REFERENCES = [
  ['Users', 'Role', 'Roles', 'Title', 'role'],
  ['Hierarchies', 'Parent', 'Hierarchies', 'ExternalId', 'hierarchy'],
  ['Schedules', 'AssessmentExtId', 'Assessments', 'ExternalId', 'assessment'],
] as const;

const WorldSchema = WorldObjectSchema.superRefine((world, ctx) => {
  const issue = (path: (string | number)[], message: string): void => ctx.addIssue({ code: 'custom', path, message });
  const entries = (list: WorldList) => world[list] as Record<string, unknown>[];
  for (const [list, keyField, compared = String, note = ''] of UNIQUE_KEYS) {
    const seen = new Set<string>();
    entries(list).forEach((entry, index) => {
      const key = entry[keyField];
      if (key === undefined) return;
      if (seen.size === seen.add(compared(String(key))).size)
        issue([list, index, keyField], `duplicate ${keyField} "${String(key)}"${note}`);
    });
  }
  for (const [list, field, named, key, what] of REFERENCES) {
    const known = new Set(entries(named).map((entry) => entry[key]));
    entries(list).forEach((entry, index) => {
      // A hierarchy without Parent is the root.
      if (entry[field] !== undefined && !known.has(entry[field]))
        issue([list, index, field], `unknown ${what} "${String(entry[field])}"`);
    });
  }
  const roots = world.Hierarchies.flatMap((hierarchy, index) => (hierarchy.Parent === undefined ? [index] : []));
  for (const index of roots.slice(1))
    issue(['Hierarchies', index, 'Parent'], 'only one root hierarchy (without Parent) is allowed');
});

export type WorldSettings = z.infer<typeof WorldSettingsSchema>;
export type WorldRole = z.infer<typeof WorldRoleSchema>;
export type WorldMembership = z.infer<typeof WorldMembershipSchema>;
export type WorldUser = z.infer<typeof WorldUserSchema>;
export type WorldHierarchy = z.infer<typeof WorldHierarchySchema>;
export type WorldAssessment = z.infer<typeof WorldAssessmentSchema>;
export type WorldTaxonomy = z.infer<typeof WorldTaxonomySchema>;
export type WorldLoRepository = z.infer<typeof WorldLoRepositorySchema>;
export type WorldCandidate = z.infer<typeof WorldCandidateSchema>;
export type WorldSchedule = z.infer<typeof WorldScheduleSchema>;
export type WorldCollection = z.infer<typeof WorldCollectionSchema>;

/** The review sessions are kept as the API returns them (ReviewSession), past what the schema checks. */
export type World = Omit<z.infer<typeof WorldObjectSchema>, 'ReviewSessions'> & { ReviewSessions: ReviewSession[] };

type WorldParse = { ok: true; world: World } | { ok: false; errors: string[] };

/** Validates a parsed world file; each error names its path (`Users[2].Email: ...`). */
export function parseWorld(input: unknown): WorldParse {
  const parsed = WorldSchema.safeParse(input);
  if (parsed.success) return { ok: true, world: parsed.data as unknown as World };
  const errors: string[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push(`${formatPath([...issue.path, key])}: unknown field`);
    } else {
      errors.push(`${formatPath(issue.path)}: ${issue.message}`);
    }
  }
  return { ok: false, errors };
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
