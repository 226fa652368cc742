/**
 * The run report as JUnit XML (`--report x.xml`, docs/ci.md) that GitLab, Jenkins and GitHub all accept. The
 * counts come first but are known only at the end: test cases wait in a SpoolSink, memory flat.
 */
import { describeTarget, errorMessages, noMemorySentence, problemLine } from './report-writers.js';
import {
  type ReportEntry,
  type ReportHeader,
  type ReportSink,
  type ReportItem,
  type ReportSummary,
} from './run-report.js';
import { runErrorJson } from './error-document.js';
import { SpoolSink, type TextSink } from '../system/text-sink.js';

// Characters XML 1.0 does not allow at all, not even as &#n; references: C0 controls other than
// tab/LF/CR, U+FFFE/U+FFFF, and UTF-16 surrogates that are not part of a pair.
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A character XML cannot carry, written visibly as `\uXXXX` so the reader still sees what was there. */
function visible(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Anything xmlText or xmlAttribute might change; most ids and file names have none of it. */
const NEEDS_ESCAPING = /[&<>"\u0000-\u001f\ud800-\udfff\ufffe\uffff]/;

/** Text content: markup characters escaped, characters XML forbids made visible. */
export function xmlText(value: string): string {
  if (!NEEDS_ESCAPING.test(value)) return value;
  return value.replace(NOT_XML, visible).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value: quotes too, and tab/LF/CR as references so they survive attribute normalisation. */
export function xmlAttribute(value: string): string {
  if (!NEEDS_ESCAPING.test(value)) return value;
  return xmlText(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function attributes(pairs: Record<string, string | number | undefined>): string {
  return Object.entries(pairs)
    .filter((pair): pair is [string, string | number] => pair[1] !== undefined)
    .map(([name, value]) => ` ${name}="${xmlAttribute(String(value))}"`)
    .join('');
}

/** The failure's one-line message: status, the codes, the first problem (`failed: 209 Email: ...`). */
function failureMessage(item: ReportItem): string {
  const codes = [...new Set(item.errors.map((problem) => problem.code).filter((code) => code !== null))].join(' ');
  const text = errorMessages(item.errors.slice(0, 1));
  const more = item.errors.length > 1 ? ` (+${item.errors.length - 1} more)` : '';
  return [`${item.status}:`, codes, `${text}${more}`].filter((part) => part !== '').join(' ');
}

export class JunitReportWriter implements ReportSink {
  private readonly cases: SpoolSink;
  private readonly now: () => Date;
  private readonly startedAt: Date;
  private readonly suiteName: string;

  constructor(
    private readonly out: TextSink,
    private readonly header: ReportHeader,
    /** The run's start, for `timestamp` and `time` (default: when the writer was made), and the clock. */
    options: { startedAt?: Date; now?: () => Date } = {},
  ) {
    this.cases = new SpoolSink(out);
    this.now = options.now ?? (() => new Date());
    this.startedAt = options.startedAt ?? this.now();
    this.suiteName = `examctl ${header.command}${header.dryRun ? ' (dry run)' : ''}`;
  }

  item({ item }: ReportEntry): void | Promise<void> {
    const id = item.id === null || item.id === '' ? '' : ` [${item.id}]`;
    const head = `    <testcase${attributes({
      name: `${item.source.file}:${item.source.line}${id}`,
      classname: this.header.command,
      file: item.source.file,
      line: item.source.line,
    })}`;
    if (item.status === 'ok') {
      // What it became (docs/cli.md, "Created and updated"): the test view's output of the case.
      const said = [
        ...(item.action === undefined ? [] : [`action: ${item.action}`]),
        ...(item.note === undefined ? [] : [`note: ${item.note}`]),
      ];
      return this.cases.write(
        said.length === 0
          ? `${head}/>\n`
          : `${head}>\n      <system-out>${xmlText(said.join('\n'))}</system-out>\n    </testcase>\n`,
      );
    }
    if (item.status === 'skipped') {
      const why = item.errors[0]?.message ?? 'not sent (--max-errors reached, interrupted, or the target failed)';
      return this.cases.write(`${head}>\n      <skipped${attributes({ message: why })}/>\n    </testcase>\n`);
    }
    const body = item.errors.map((problem) => problemLine(item, problem)).join('\n');
    return this.cases.write(
      `${head}>\n      <failure${attributes({ message: failureMessage(item), type: item.status })}>${xmlText(body)}</failure>\n    </testcase>\n`,
    );
  }

  /** The run stopped or was refused (exit 2, 3, 130): one more failing test case saying why. */
  stopped(error: unknown): void {
    const { code, message, kind, exitCode } = runErrorJson(error);
    // Coded as on stderr (`examctl: E2501: ...`): the code is what a reader looks up (examctl explain).
    const coded = `${code}: ${message}`;
    this.stopCase =
      `    <testcase${attributes({ name: `examctl ${this.header.command}: the run stopped (exit ${exitCode})`, classname: this.header.command })}>\n` +
      `      <failure${attributes({ message: coded, type: kind })}>${xmlText(coded)}</failure>\n    </testcase>\n`;
  }

  private stopCase = '';
  readonly discard = (): Promise<void> => this.cases.discard();

  async finish(summary: ReportSummary): Promise<void> {
    const seconds = ((this.now().getTime() - this.startedAt.getTime()) / 1000).toFixed(3);
    const stops = this.stopCase === '' ? 0 : 1;
    if (stops > 0) await this.cases.write(this.stopCase);
    const memory = this.header.syncMemory;
    const sentence = noMemorySentence(this.header);
    const memoryValue =
      memory === undefined
        ? undefined
        : sentence === undefined
          ? `found: ${memory.remembered} remembered (${memory.file})`
          : `${memory.populationFound ? 'incomplete' : 'none'}: ${sentence}`;
    const counts = {
      tests: summary.total + stops,
      failures: summary.failed + summary.partial + stops,
      errors: 0,
      skipped: summary.skipped,
      time: seconds,
    };
    // xs:dateTime without a zone, as the Ant/Jenkins schema has it; the value is UTC.
    const timestamp = this.startedAt.toISOString().slice(0, 19);
    const { targetFrom, tokenFrom, profile } = this.header;
    try {
      await this.out.write(
        `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attributes({ name: this.suiteName, ...counts })}>\n` +
          `  <testsuite${attributes({ name: this.suiteName, ...counts, timestamp })}>\n` +
          `    <properties>\n      <property${attributes({ name: 'target', value: describeTarget(this.header.target) })}/>\n` +
          // Where the target and token came from, and the profile, as the JSON report's header says.
          Object.entries({
            targetFrom,
            tokenFrom,
            profile: profile && JSON.stringify(profile),
            dryRun: String(this.header.dryRun),
            syncMemory: memoryValue,
          })
            .map(([name, value]) => (value === undefined ? '' : `      <property${attributes({ name, value })}/>\n`))
            .join('') +
          '    </properties>\n',
      );
      await this.cases.commit();
    } catch (error) {
      await this.cases.discard();
      throw error;
    }
    await this.out.write('  </testsuite>\n</testsuites>\n');
  }
}
