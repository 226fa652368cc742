/**
 * GitHub Actions annotations for failed records (docs/ci.md, "GitHub annotations") on stderr: the runner
 * reads both streams, and stdout may hold the --json document.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Problem } from '../domain/problem.js';
import type { ReportEntry, ReportHeader, ReportSink, ReportItem } from './run-report.js';
import { errorMessages, noMemorySentence } from './report-writers.js';
import { runErrorJson } from './error-document.js';
import type { TextSink } from '../system/text-sink.js';
import type { Env } from '../system/env-values.js';

/** The Actions toolkit's escaping of a command's message. */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** The Actions toolkit's escaping of a property value: the message's, plus `:` and `,` (the separators). */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** GITHUB_ACTIONS is set to exactly "true" by the runner. */
export function githubActionsEnabled(env: Env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

interface AnnotationOptions {
  /** Where relative input paths are resolved from (the command's working directory). */
  cwd: string;
  /** GITHUB_WORKSPACE: file paths are given relative to it, as the pull request view needs. */
  workspace?: string | undefined;
  /** A missing sync memory, or one that misses a run, is said as a warning (noMemorySentence). */
  header?: ReportHeader | undefined;
  /** A refused run went nowhere: its refusal's `::error` says why, and no warning of what a night costs beside it. */
  refused?: boolean | undefined;
}

function annotationFile(file: string, options: AnnotationOptions): string | undefined {
  // Sources that name no file (flags, arguments, answers, stdin) get no `file=`.
  if (file === '-' || /^<.*>$/.test(file)) return undefined;
  const absolute = resolve(options.cwd, file);
  if (options.workspace === undefined) return file;
  const inside = relative(options.workspace, absolute);
  // Outside the workspace the PR view cannot place it; the path as given still names it in the log.
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return file;
  return inside.split(sep).join('/');
}

function problemText(problem: Problem): string {
  const text = errorMessages([problem]);
  return problem.code === null ? text : `${text} (code ${problem.code})`;
}

/** The annotations of one report item: one per source line its errors name, none for ok and skipped items. */
export function annotationsOf(item: ReportItem, options: AnnotationOptions): string[] {
  if (item.status !== 'failed' && item.status !== 'partial') return [];
  const level = item.status === 'failed' ? 'error' : 'warning';
  const byLine = new Map<number, Problem[]>();
  for (const problem of item.errors) {
    const line = problem.line ?? item.source.line;
    byLine.set(line, [...(byLine.get(line) ?? []), problem]);
  }
  if (byLine.size === 0) byLine.set(item.source.line, []);
  const file = annotationFile(item.source.file, options);
  const id = item.id ? `[${item.id}] ` : '';
  return [...byLine].map(([line, problems]) => {
    const codes = [...new Set(problems.map((problem) => problem.code).filter((code) => code !== null))];
    const title = codes.length > 0 ? codes.join(' ') : item.status;
    const properties = [
      ...(file === undefined ? [] : [`file=${escapeProperty(file)}`, `line=${line}`]),
      `title=${escapeProperty(title)}`,
    ];
    const message = problems.length === 0 ? `${id}${item.status}` : `${id}${problems.map(problemText).join('\n')}`;
    return `::${level} ${properties.join(',')}::${escapeData(message)}\n`;
  });
}

/** Annotations written before the closing notice: GitHub's per-job bound. */
const ANNOTATION_LIMIT = 50;

/** A report sink that writes the annotations as the items come. */
export class GithubAnnotationsWriter implements ReportSink {
  private written = 0;
  private notAnnotated = 0;

  constructor(
    private readonly out: TextSink,
    private readonly options: AnnotationOptions,
  ) {}

  item({ item }: ReportEntry): void | Promise<void> {
    const lines = annotationsOf(item, this.options);
    if (lines.length === 0) return;
    if (this.written >= ANNOTATION_LIMIT) {
      this.notAnnotated += 1;
      return;
    }
    this.written += 1;
    return this.out.write(lines.join(''));
  }

  /** The run stopped or was refused: the job page says why and its code (docs/errors.md), not only the exit code. */
  stopped(error: unknown): void {
    const { code, message } = runErrorJson(error);
    this.stopLine = `::error title=examctl: the run stopped::${escapeData(`${code}: ${message}`)}\n`;
  }

  private stopLine = '';

  finish(): void | Promise<void> {
    // A nightly run without its memory did more (and disabled less) than meant: a warning the job page shows.
    const { header } = this.options;
    const sentence = header && this.options.refused !== true ? noMemorySentence(header) : undefined;
    const title = header?.syncMemory?.populationFound ? 'sync memory incomplete' : 'no sync memory';
    const noMemory =
      sentence === undefined ? '' : `::warning title=examctl: ${escapeProperty(title)}::${escapeData(sentence)}\n`;
    const records = this.notAnnotated === 1 ? 'record' : 'records';
    const more =
      this.notAnnotated === 0
        ? ''
        : `::notice title=examctl::${escapeData(`${this.notAnnotated} more failed or partial ${records} not annotated: the run report (--report) lists every one`)}\n`;
    const text = `${this.stopLine}${noMemory}${more}`;
    return text === '' ? undefined : this.out.write(text);
  }
}
