/**
 * What a dry run on the local engine would do (docs/cli.md, "The local store"), in words a person
 * reads before sending; the same words go into the JSON summary, so a script reads one plan too.
 */
import { formatCount } from '../formats/number-format.js';
import type { ReportItem } from './run-report.js';
import { HIERARCHY_CELL_FLAGS } from '../domain/coercion.js';

interface PlanCounts {
  toCreate: number;
  toUpdate: number;
  unchanged: number;
  invalid: number;
  /** A plan from the sync memory (--changed-only on a remote target): records to send, the service not asked. */
  toSend?: number;
  /** --disable-missing: leavers whose login would be disabled. */
  toDisable?: number;
  /** --only-new or --only-existing: records it would not send. */
  leftAlone?: number;
}

const SHOWN_RECORDS = 10;

/** How a record shows in the plan: `+ stu-1`, `~ stu-2 (LastName)`, a mover's move, `= stu-3`, `- stu-5 (disable login)`, `> stu-6`, `! stu-4 (invalid)`. */
type PlanSign = '+' | 'move' | '~' | '=' | 'left' | '-' | '>' | '!';

function planLine(sign: PlanSign, item: ReportItem): string {
  const id = item.id ?? '-';
  switch (sign) {
    // A mover (--prune-memberships): what it leaves and joins says more than `(Hierarchies)`.
    case 'move':
      return `~ ${id} (${describeMove(item.removed ?? [], item.joined)})`;
    case '+':
    case '~':
      return `${sign} ${id}${item.changedFields && item.changedFields.length > 0 ? ` (${item.changedFields.join(', ')})` : ''}`;
    case '-':
      return `- ${id} (disable login)`;
    case '!':
      return `! ${id} (invalid)`;
    case 'left':
      return `= ${id} (left alone)`;
    default:
      return `${sign} ${id}${sign === '>' && item.note !== undefined ? ` (${item.note})` : ''}`;
  }
}


export class RunPlan {
  readonly counts: PlanCounts = { toCreate: 0, toUpdate: 0, unchanged: 0, invalid: 0 };
  /**
   * True once an item carried an action: the target planned (a local store), not only validated;
   * from the start when the run decides from the sync memory (a remote --changed-only dry run
   * whose every record changed still has a plan: all to send).
   */
  planned: boolean;

  constructor(fromMemory = false) {
    this.planned = fromMemory;
  }
  /** What changes comes first on screen; unchanged records only fill the rest. */
  private readonly changes: string[] = [];
  /** Leavers to disable (--disable-missing) come first of all: the step least easy to take back. */
  private readonly disables: string[] = [];
  private readonly same: string[] = [];
  private listed = 0;

  add(item: ReportItem): void {
    // Counted for every item; its line is written only while its list has room (a dry run of
    // millions of rows wrote a line per row).
    let sign: PlanSign;
    if (item.action === 'created') {
      this.counts.toCreate += 1;
      sign = '+';
    } else if (item.removed !== undefined && (item.status === 'ok' || item.status === 'partial')) {
      if (item.action === 'updated') this.counts.toUpdate += 1;
      else this.counts.toSend = (this.counts.toSend ?? 0) + 1;
      sign = 'move';
      this.planned = true;
    } else if (item.action === 'updated') {
      this.counts.toUpdate += 1;
      sign = '~';
    } else if (item.action === 'unchanged') {
      this.counts.unchanged += 1;
      sign = '=';
    } else if (item.action === 'left') {
      this.counts.leftAlone = (this.counts.leftAlone ?? 0) + 1;
      sign = 'left';
    } else if (item.action === 'disabled') {
      this.counts.toDisable = (this.counts.toDisable ?? 0) + 1;
      sign = '-';
    } else if (item.status === 'ok') {
      this.counts.toSend = (this.counts.toSend ?? 0) + 1;
      sign = '>';
    } else if (item.status === 'failed' || item.status === 'partial') {
      this.counts.invalid += 1;
      sign = '!';
    } else {
      return;
    }
    if (item.action !== undefined) this.planned = true;
    this.listed += 1;
    const list = item.action === 'unchanged' || item.action === 'left' ? this.same : item.action === 'disabled' ? this.disables : this.changes;
    if (list.length < SHOWN_RECORDS) list.push(planLine(sign, item));
  }

  /** `1 to create, 1 to update, 1 unchanged, 1 invalid` (a zero count is left out, except when all are zero). */
  countsLine(): string {
    const { toCreate, toUpdate, unchanged, invalid, toSend = 0, toDisable = 0, leftAlone = 0 } = this.counts;
    const parts = [
      [toCreate, 'to create'],
      [toUpdate, 'to update'],
      [toSend, 'to send'],
      [unchanged, 'unchanged'],
      [leftAlone, 'left alone'],
      [toDisable, 'to disable'],
      [invalid, 'invalid'],
    ] as const;
    const shown = parts.filter(([count]) => count > 0).map(([count, words]) => `${formatCount(count)} ${words}`);
    return shown.length > 0 ? shown.join(', ') : 'nothing to do';
  }

  /** The plan block of the human summary; empty when nothing was planned (remote, or no store yet). */
  lines(): string[] {
    if (!this.planned) return [];
    const shown = [...this.disables, ...this.changes, ...this.same].slice(0, SHOWN_RECORDS);
    const more = this.listed - shown.length;
    return [`plan: ${this.countsLine()}`, ...shown.map((line) => `  ${line}`), ...(more > 0 ? [`  ... and ${formatCount(more)} more`] : [])];
  }
}

/** The plan's words for one mover: `leaves H-A; joins H-D` or `H-A: no longer coordinator`. */
export function describeMove(removed: readonly string[], joined: readonly string[] = []): string {
  const left: string[] = [];
  const revoked = new Map<string, string[]>();
  for (const entry of removed) {
    // A flag revoked is `id:word`; an id may hold `:` itself (`SCH:MATH` is a link left).
    const colon = entry.lastIndexOf(':');
    if (colon < 0 || !Object.hasOwn(HIERARCHY_CELL_FLAGS, entry.slice(colon + 1))) left.push(entry);
    else revoked.set(entry.slice(0, colon), [...(revoked.get(entry.slice(0, colon)) ?? []), entry.slice(colon + 1)]);
  }
  const parts: string[] = [];
  if (left.length > 0) parts.push(`leaves ${left.join(', ')}`);
  for (const [id, words] of revoked) parts.push(`${id}: no longer ${words.join(', ')}`);
  if (joined.length > 0) parts.push(`joins ${joined.join(', ')}`);
  return parts.join('; ');
}
