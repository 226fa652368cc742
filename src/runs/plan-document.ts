/** The plan document (docs/plan.md): what `examctl apply` sends exactly; one item a line, checksummed, 0600. */
import { createHash, hash } from 'node:crypto';
import { z } from 'zod';
import { SECRET_FIELDS } from '../domain/field-names.js';
import { InputFileError, UsageError } from '../system/errors.js';
import { ReplacementFile } from '../system/atomic-file.js';
import { describeSystemError } from '../system/system-error-words.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileWithStat } from '../system/regular-file.js';

export const PLAN_FORMAT = 'examctl-plan';
export const PLAN_VERSION = 1;

/** What the real run does with an item (docs/plan.md, "Actions"): declared once, in plan-actions.ts. */
import { PLAN_ACTIONS } from '../report/plan-actions.js';

const SOURCE = z.object({ file: z.string(), line: z.number().int().nonnegative() }).loose();
const CHANGE = z.object({
  field: z.string(),
  known: z.boolean(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});
const PROBLEM = z.object({ field: z.string(), code: z.union([z.number(), z.string(), z.null()]), message: z.string() });

export const PLAN_ITEM = z.object({
  /** The item's place in the run (its journal position). */
  n: z.number().int().nonnegative(),
  id: z.string().nullable(),
  source: SOURCE,
  action: z.enum(PLAN_ACTIONS),
  /** SHA-256 (base64url) of the request as it is sent, secrets included: what apply compares. */
  digest: z.string().optional(),
  /** The request as it is sent, a PIN or password withheld. */
  request: z.unknown().optional(),
  note: z.string().optional(),
  changes: z.array(CHANGE).optional(),
  removed: z.array(z.string()).optional(),
  joined: z.array(z.string()).optional(),
  errors: z.array(PROBLEM).optional(),
});
export type PlanItem = z.infer<typeof PLAN_ITEM>;
/** An item as written: its fields before `request`, and those after it. */
export type PlanItemHead = Pick<PlanItem, 'n' | 'id' | 'source' | 'action' | 'digest'>;
export type PlanItemRest = Omit<PlanItem, keyof PlanItemHead | 'request' | 'changes'> & {
  changes?: readonly z.infer<typeof CHANGE>[];
};

const TARGET = z.union([
  z.object({ kind: z.literal('local'), store: z.string() }),
  z.object({ kind: z.literal('remote'), baseUrl: z.string() }),
]);

/** An input file the plan was made from: apply reads the dry run's copy, never the file again. */
const INPUT = z.object({
  /** The option that named it (`file`, `mapFile`, `schedule`). */
  option: z.string(),
  path: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
});
export type PlanInput = z.infer<typeof INPUT>;

/** The header: everything before the items, written first. */
export const PLAN_HEADER = z.object({
  format: z.literal(PLAN_FORMAT),
  version: z.literal(PLAN_VERSION),
  id: z.string().regex(/^[0-9a-f]{16}$/),
  created: z.iso.datetime(),
  examctl: z.string(),
  command: z.string(),
  target: TARGET,
  cwd: z.string(),
  /** The command's options as a run journal keeps them (docs/runs.md, "What a journal keeps"). */
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])),
  /**
   * The profile's settings that shape the requests, as the run's settings line says them (`set Role=Author`); ''
   * none. Absent in a plan an examctl that did not record it wrote.
   */
  settings: z.string().optional(),
  inputs: z.array(INPUT),
  /** The store's position, opaque, compared by equality; null: the target tells none (a remote service). */
  store: z.string().nullable(),
  /** The sync memory's position, opaque (a digest of what it holds); `none`: there was none. */
  memory: z.string(),
});
export type PlanHeader = z.infer<typeof PLAN_HEADER>;

export const PLAN_DOCUMENT = PLAN_HEADER.extend({
  items: z.array(PLAN_ITEM),
  counts: z.record(z.string(), z.number().int().nonnegative()),
  /** Thresholds judged when the plan was made (--max-disable, --max-prune), as said then. */
  judged: z.array(z.string()),
  checksum: z.string(),
});
export type PlanDocument = z.infer<typeof PLAN_DOCUMENT>;

/** The digest apply compares: of the request exactly as built (key order included), secrets in. */
export function planDigest(request: unknown): string {
  return digestOfJson(JSON.stringify(request));
}

/** planDigest of a request whose JSON is at hand. */
export function digestOfJson(json: string): string {
  return hash('sha256', json, 'base64url');
}

/** Whether a request's JSON may hold a secret: a `"PIN":` or `"Password":` can only be a key. */
export function mayHoldSecret(json: string): boolean {
  return json.includes('"Password":') || json.includes('"PIN":');
}

/** The request as the plan shows it: a PIN or password withheld, at any depth (the digest covers it). */
export function shownRequest(request: unknown): unknown {
  if (request === null || typeof request !== 'object') return request;
  if (Array.isArray(request)) return request.map(shownRequest);
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request))
    shown[key] = SECRET_FIELDS.has(key) && value !== undefined && value !== '' ? '(withheld)' : shownRequest(value);
  return shown;
}

const CHECKSUM_LINE = /\n {2}"checksum": "sha256:([0-9a-f]{64})"\n\}\n$/;
/** A plan is read whole: its items are bounded by this many bytes. */
export const MAX_PLAN_BYTES = 1024 * 1024 * 1024;

/** Writes a plan as its items come; its checksum covers every byte before its line; replaced whole, 0600. */
export class PlanWriter {
  private readonly digest = createHash('sha256');
  private items = 0;

  private constructor(private readonly file: ReplacementFile) {
    file.writer.onFlush = (bytes) => this.digest.update(bytes);
  }

  static async open(path: string, header: PlanHeader): Promise<PlanWriter> {
    const file = await ReplacementFile.open(path).catch((error: Error) => {
      throw new UsageError(`--plan-out ${path}: cannot write it (${error.message})`);
    });
    const lines = Object.entries(header).map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`);
    await file.writer.write(`{\n${lines.join('')}  "items": [`);
    return new PlanWriter(file);
  }

  /** An item on its line: `head`, then `request` (its JSON, as the plan shows it), then `rest`. */
  async add(head: PlanItemHead, request: string | undefined, rest: PlanItemRest): Promise<void> {
    let line = JSON.stringify(head);
    if (request !== undefined) line = `${line.slice(0, -1)},"request":${request}}`;
    const after = JSON.stringify(rest);
    if (after !== '{}') line = `${line.slice(0, -1)},${after.slice(1)}`;
    await this.file.writer.write(`${this.items++ === 0 ? '' : ','}\n    ${line}`);
  }

  /** Completes the plan: counts, what was judged, the checksum; renamed into place. */
  async finish(counts: Record<string, number>, judged: readonly string[]): Promise<void> {
    const writer = this.file.writer;
    await writer.write(
      `${this.items === 0 ? '' : '\n  '}],\n  "counts": ${JSON.stringify(counts)},\n  "judged": ${JSON.stringify(judged)},`,
    );
    await writer.flush();
    writer.onFlush = undefined;
    await writer.write(`\n  "checksum": "sha256:${this.digest.digest('hex')}"\n}\n`);
    await this.file.commit();
  }

  discard(): Promise<void> {
    return this.file.discard();
  }
}

/** A plan file read back and checked (checksum, format, version, every field's type): nothing trusted before. */
export async function readPlan(path: string, named = path): Promise<PlanDocument> {
  const refused = (why: string) => new UsageError(`plan ${path}: ${why}`, { code: 'E2600' });
  // One handle: the bytes judged are those of the file checked regular and bounded.
  const text = await readRegularFileWithStat(path, { maxBytes: MAX_PLAN_BYTES, followLinks: true }).then(
    ({ bytes }) => bytes.toString('utf8'),
    (error: unknown) => {
      if (error instanceof NotRegularFileError) throw refused(`not a file (${error.kind})`);
      if (error instanceof FileTooLargeError) throw refused(`larger than a plan can be (${MAX_PLAN_BYTES} bytes)`);
      // No file there: a path to check, not a plan to make again; an input file named as given, as `--file`'s is.
      if ((error as { code?: unknown } | null)?.code === 'ENOENT') {
        throw new InputFileError(named, undefined, `cannot read the plan (${describeSystemError(error)})`, 'E2101');
      }
      throw refused(`cannot read it (${describeSystemError(error)})`);
    },
  );
  const end = CHECKSUM_LINE.exec(text);
  if (end === null) throw refused('not an examctl plan, or cut short (no checksum at its end)');
  if (createHash('sha256').update(text.slice(0, end.index)).digest('hex') !== end[1])
    throw refused(
      'it was changed after examctl wrote it (its checksum does not match): nothing was sent; make a new plan (--plan-out) and review that',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refused('not JSON');
  }
  const version = (parsed as { version?: unknown }).version;
  if ((parsed as { format?: unknown }).format === PLAN_FORMAT && version !== PLAN_VERSION)
    throw refused(
      `version ${String(version)}, this examctl reads version ${PLAN_VERSION}: apply it with the examctl that made it`,
    );
  const checked = PLAN_DOCUMENT.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw refused(`not an examctl plan: ${issue.path.join('.') || '(document)'}: ${issue.message}`);
  }
  // Numbers and counts that are not the items' would name one item and send another.
  const tally: Record<string, number> = {};
  for (const [place, item] of checked.data.items.entries()) {
    if (item.n !== place)
      throw refused(
        `item ${item.n} (${item.id ?? 'no id'}) is at place ${place}: items were removed or moved after examctl wrote it; nothing was sent; make a new plan (--plan-out) and review that`,
      );
    tally[item.action] = (tally[item.action] ?? 0) + 1;
  }
  const { counts } = checked.data;
  const actions = new Set([...Object.keys(tally), ...Object.keys(counts)]);
  if ([...actions].some((action) => tally[action] !== counts[action]))
    throw refused(
      `its counts ${JSON.stringify(counts)} are not its items' ${JSON.stringify(tally)}: it was changed after examctl wrote it; nothing was sent; make a new plan (--plan-out) and review that`,
    );
  // What a person reviews is each request; what apply sends is the one its digest names: they are one.
  for (const item of checked.data.items) {
    if (item.digest === undefined || item.request === undefined) continue;
    const json = JSON.stringify(item.request);
    if (!mayHoldSecret(json) && digestOfJson(json) !== item.digest)
      throw refused(
        `item ${item.n} (${item.id ?? 'no id'}): its request is not the one its digest names (it was changed after examctl wrote it): nothing was sent; make a new plan (--plan-out) and review that`,
      );
  }
  return checked.data;
}

/** What `examctl apply` hands the pipeline: the request each item must send (docs/plan.md, "Apply"). */
export interface PlanGuard {
  readonly path: string;
  /** The plan's id: its run's journal names it, so a resume checks each request against the plan kept for it. */
  readonly plan: string;
  /** A resume of apply's run: a resend may add DisableLogin false to the plan's user request (plan-tap.ts). */
  readonly resumed?: boolean;
  /** The plan's item at position n, if any. */
  itemAt(n: number): PlanItem | undefined;
  /** Told the id of the run that applies the plan, once its journal exists and before any request goes. */
  onRun?(run: string): Promise<void>;
}
