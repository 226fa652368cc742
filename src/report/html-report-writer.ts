/**
 * `--report FILE.html` (docs/cli.md, "The HTML page"): one self-contained page a person reads: the
 * counts first, then a table per action, each row with its before and after, a search box, sortable
 * columns, printable. Streamed in bounded memory: the rows go out as they come, as a JSON island
 * (every `<`, `>` and `&` escaped, so no value ends it), and the page's own inline script
 * (html-page-assets.ts) draws them a page at a time; the counts and tables are written at `finish`.
 */
import { isSecretField } from '../domain/field-names.js';
import { holdsKnownSecret } from '../domain/known-secrets.js';
import { formatCount } from '../formats/number-format.js';
import { messageOf } from '../system/errors.js';
import type { TextSink } from '../system/text-sink.js';
import { PAGE_POLICY, PAGE_SCRIPT, PAGE_STYLE } from './html-page-assets.js';
import { ACTION_WORDS, itemAction, SHOWN_ORDER, type PlanAction } from './plan-actions.js';
import { describeTarget, movedLines, noMemorySentence, problemWords, REDACTED_CELL } from './report-writers.js';
import type { ReportEntry, ReportHeader, ReportItem, ReportSink, ReportSummary, SourceRow } from './run-report.js';

/** A value longer than this is cut on the page (the .json report has it whole): a hostile cell cannot swell it. */
const VALUE_CHARS = 2000;

/** What a row of the page is in: its table, one per action (plan-actions.ts); a real run's partial items apart. */
type Group = PlanAction | 'partial';

/** The tables in the page's order (plan-actions.ts); a real run's partial items before the skipped ones. */
const GROUPS: readonly Group[] = SHOWN_ORDER.flatMap((action) =>
  action === 'skipped' ? ['partial', action] : [action],
);

/** Each table's heading: what the action's words mean (unchanged rows: none, a row left out says so in its note). */
const MEANING: Partial<Record<Group, string>> = {
  disable: 'not in the file',
  enable: 'a login examctl disabled',
  invalid: 'not sent',
};

/** Tables that change nothing start folded: a night of 40,000 unchanged users does not bury the 11 that change. */
const FOLDED: ReadonlySet<Group> = new Set(['unchanged', 'left']);

export function groupOf(item: ReportItem): Group {
  if (item.status === 'partial' && item.dryRun !== true) return 'partial';
  return itemAction(item);
}

/** One line of a before or after cell: a label and its value (null: not known), or a label alone. */
type Line = readonly [label: string] | readonly [label: string, value: string | null];

/** A value as the page shows it: text as it is, anything else as its JSON; cut past VALUE_CHARS. */
function shownValue(field: string, value: unknown): string {
  // A related entity's field is named `<collection> <id> <field>`.
  if (isSecretField(field.slice(field.lastIndexOf(' ') + 1))) return 'withheld';
  if (value === undefined) return '(no value)';
  if (value === null || value === '') return '(empty)';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > VALUE_CHARS
    ? `${text.slice(0, VALUE_CHARS)}... (cut: ${formatCount(text.length)} characters)`
    : text;
}

/** A row's before and after: each field's old and new value; a mover's links lost and gained; a leaver's one step. */
export function beforeAndAfter(item: ReportItem): { before: Line[]; after: Line[] } {
  const before: Line[] = [];
  const after: Line[] = [];
  if (itemAction(item) === 'disable') {
    after.push(['', item.dryRun ? 'disable login' : 'login disabled']);
    return { before, after };
  }
  // A mover's links once: as it leaves and joins them (below).
  const moved = item.removed !== undefined && item.removed.length > 0 ? item.moved : undefined;
  const changes = item.changes ?? [];
  for (const change of changes) {
    if (change.field === moved) continue;
    // A created item's field had no value; a schedule created changes its candidates' users that had one.
    if (item.action !== 'created' || change.before !== undefined)
      before.push([change.field, change.known ? shownValue(change.field, change.before) : null]);
    after.push([change.field, shownValue(change.field, change.after)]);
  }
  // The fields that change whose values the report lacks (a remote target's, a schedule's candidates whose ids stay): by name.
  for (const field of item.changedFields ?? [])
    if (field !== moved && !changes.some((change) => change.field === field || change.field.startsWith(`${field} `)))
      after.push([field]);
  if (item.removed !== undefined) before.push(...movedLines(item.removed));
  if (item.joined !== undefined && item.joined.length > 0) after.push(['joins', item.joined.join(', ')]);
  return { before, after };
}

/** Columns of a header whose values the page shows: a secret's never. Kept by header, each file's read once. */
const shownColumns = new WeakMap<readonly string[], readonly boolean[]>();

/**
 * The row's own values as read (`Email ada@example.test · Role Candidate`), its id and a secret's left out,
 * the whole cut past VALUE_CHARS: shown under the id, so a search finds a row by a value that does not change.
 */
export function recordOf(rows: readonly SourceRow[] | undefined, id: string | null = null): string {
  if (rows === undefined) return '';
  const parts: string[] = [];
  let chars = 0;
  for (const { header, cells } of rows) {
    let shown = shownColumns.get(header);
    if (shown === undefined) {
      shown = header.map((name) => !isSecretField(name));
      shownColumns.set(header, shown);
    }
    for (let i = 0; i < cells.length && chars <= VALUE_CHARS; i++) {
      const cell = cells[i]!.trim();
      if (cell === '' || cell === id || shown[i] === false) continue;
      // A cell holding a secret examctl knows is shown as the .csv report shows it (docs/security.md).
      const part = `${header[i] ?? `column ${i + 1}`} ${holdsKnownSecret(cell) ? REDACTED_CELL : cell}`;
      parts.push(part);
      chars += part.length + 3;
    }
  }
  const text = parts.join(' · ');
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}... (cut)` : text;
}

/** The note cell: the item's errors (`field code message`), then its note. */
function noteOf(item: ReportItem): string {
  return [...item.errors.map(problemWords), ...(item.note === undefined ? [] : [item.note])].join('\n');
}

/** Text in HTML, as text: `<script>` in a name shows as `<script>`. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** JSON that no value can end early inside a `<script>` element (`</script>`, `<!--`), nor break as a line end. */
export function islandJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export class HtmlReportWriter implements ReportSink {
  private readonly counts = new Map<Group, number>();
  private rows = 0;
  private stoppedBy: string | undefined;
  private started = false;

  constructor(
    private readonly out: TextSink,
    private readonly header: ReportHeader,
    /** When the page is written (`runs show`: when its run ended). */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The page's head and the rows' island opened, once: at the first row, else at `finish`. */
  private begin(): string {
    if (this.started) return '';
    this.started = true;
    const { command, dryRun } = this.header;
    const title = `${command}${dryRun ? ' (dry run)' : ''}: ${describeTarget(this.header.target)}`;
    return (
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
      `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(PAGE_POLICY)}">\n` +
      '<meta name="referrer" content="no-referrer">\n' +
      '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
      `<title>${escapeHtml(title)}</title>\n<style>${PAGE_STYLE}</style>\n</head>\n<body>\n` +
      '<script type="application/json" id="examctl-rows">['
    );
  }

  item({ item, rows }: ReportEntry): void | Promise<void> {
    const group = groupOf(item);
    this.counts.set(group, (this.counts.get(group) ?? 0) + 1);
    const { before, after } = beforeAndAfter(item);
    const row = [
      GROUPS.indexOf(group),
      item.id ?? '',
      item.source.line > 0 ? `${item.source.file}:${item.source.line}` : item.source.file,
      before,
      after,
      noteOf(item),
      recordOf(rows, item.id),
    ];
    const text = `${this.begin()}${this.rows === 0 ? '\n' : ',\n'}${islandJson(row)}`;
    this.rows += 1;
    return this.out.write(text);
  }

  stopped(error: unknown): void {
    this.stoppedBy ??= messageOf(error);
  }

  async finish(summary: ReportSummary): Promise<void> {
    const { command, dryRun, run } = this.header;
    const n = formatCount;
    const facts = [
      `${dryRun ? 'Dry run: nothing was sent; each row says what the real run would do' : 'Run'} on ${describeTarget(this.header.target)}`,
      ...(run === undefined ? [] : [`run ${run} (examctl runs show ${run})`]),
      `written ${this.now().toISOString()}`,
    ];
    const warnings = [
      ...(this.stoppedBy === undefined ? [] : [`The run stopped early: ${this.stoppedBy}`]),
      ...[noMemorySentence(this.header)].filter((line) => line !== undefined),
    ];
    const status = [
      ['total', 'Items', summary.total],
      ['ok', dryRun ? 'Valid' : 'Ok', summary.ok],
      ['partial', 'Partial', summary.partial],
      ['failed', dryRun ? 'Invalid' : 'Failed', summary.failed],
      ['skipped', 'Skipped', summary.skipped],
    ] as const;
    const tiles = [
      ...status
        .filter(([key, , count]) => key === 'total' || count > 0)
        .map(
          ([key, words, count]) =>
            `<li class="${key}"><span class="n">${n(count)}</span><span class="label">${words}</span></li>`,
        ),
      ...GROUPS.filter((group) => (this.counts.get(group) ?? 0) > 0).map(
        (group) =>
          `<li class="action"><a href="#${group}"><span class="n">${n(this.counts.get(group) ?? 0)}</span><span class="label">${escapeHtml(this.title(group))}</span></a></li>`,
      ),
    ];
    const tables = GROUPS.filter((group) => (this.counts.get(group) ?? 0) > 0).map((group) => this.table(group));
    const page =
      `${this.begin()}\n]</script>\n<header>\n<h1>${escapeHtml(command)}${dryRun ? ' (dry run)' : ''}</h1>\n` +
      `<div class="facts">${facts.map((fact) => `<div>${escapeHtml(fact)}</div>`).join('')}</div>\n` +
      warnings.map((line) => `<p class="warning">${escapeHtml(line)}</p>\n`).join('') +
      `<ul class="counts" id="counts">\n${tiles.join('\n')}\n</ul>\n</header>\n` +
      '<noscript><p class="warning">The rows are drawn by this page\'s own script: with scripts off only the counts show (the .json report has every row).</p></noscript>\n' +
      (this.rows === 0
        ? '<p class="empty">No item was reported.</p>\n'
        : '<div class="search"><label for="search">Search</label><input id="search" type="search" autocomplete="off" placeholder="an id, a name, a value, an error..."><output id="matches"></output></div>\n') +
      `<main>\n${tables.join('\n')}\n</main>\n` +
      `<footer>examctl ${escapeHtml(command)}: ${n(this.rows)} rows. Values over ${n(VALUE_CHARS)} characters are cut here; the .json report has them whole.</footer>\n` +
      `<script>${PAGE_SCRIPT}</script>\n</body>\n</html>\n`;
    await this.out.write(page);
  }

  private title(group: Group): string {
    const at = this.header.dryRun ? 0 : 1;
    const words = group === 'partial' ? 'partial' : ACTION_WORDS[group][at];
    const meaning = MEANING[group] ?? '';
    return `${words.charAt(0).toUpperCase()}${words.slice(1)}${meaning === '' ? '' : ` (${meaning})`}`;
  }

  private table(group: Group): string {
    const heads = ['ID', 'Row', 'Before', 'After', 'Note'];
    return (
      `<section class="group" id="${group}" data-group="${GROUPS.indexOf(group)}">\n` +
      `<details${FOLDED.has(group) ? '' : ' open'}><summary><h2>${escapeHtml(this.title(group))}</h2><span class="count">${formatCount(this.counts.get(group) ?? 0)}</span></summary>\n` +
      '<table><colgroup><col class="id"><col class="where"><col class="before"><col class="after"><col class="note"></colgroup>\n' +
      `<thead><tr>${heads.map((head) => `<th scope="col"><button type="button">${head}</button></th>`).join('')}</tr></thead>\n` +
      '<tbody></tbody></table>\n<div class="pager"></div>\n</details>\n</section>'
    );
  }
}
