/**
 * Messages in the file's own terms (docs/input-formats.md, "Messages quote the file's own text"):
 * the written text put before each UTC instant or date a message names. Pure.
 */
import type { Problem } from './problem.js';
import type { WrittenTime } from './local-time.js';

/** RFC 3339 instants and plain dates inside a message. */
const INSTANT_OR_DATE =
  /\b\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2}))?(?![\d:])/g;

/** A value as the file wrote it, then the API's form: `28/03/2027 09:00 (Europe/London) = 2027-03-28T08:00:00.000Z`. */
function writtenText(written: WrittenTime, shown: string): string {
  return `${written.text}${written.zone === undefined ? '' : ` (${written.zone})`} = ${shown}`;
}

/** The written value a text in a message stands for: the same instant, or the same date. */
function writtenOf(text: string, written: readonly WrittenTime[]): WrittenTime | undefined {
  const isDate = text.length === 10;
  const instant = isDate ? Number.NaN : Date.parse(text);
  return written.find((entry) =>
    isDate ? entry.value === text : entry.value.length > 10 && Date.parse(entry.value) === instant,
  );
}

/** The message with each instant or date the record read from other text quoted as written first. */
export function quoteWritten(message: string, written: readonly WrittenTime[] | undefined): string {
  if (written === undefined || written.length === 0) return message;
  return message.replace(INSTANT_OR_DATE, (text, offset: number) => {
    const entry = writtenOf(text, written);
    // Said once: a message that already quotes the written text (a reader's) keeps its words.
    if (entry === undefined || message.slice(0, offset).includes(entry.text)) return text;
    return writtenText(entry, text);
  });
}

/** Problems with their messages quoting the written values (the same array when none changes). */
export function quoteWrittenProblems(problems: Problem[], written: readonly WrittenTime[] | undefined): Problem[] {
  if (written === undefined || written.length === 0) return problems;
  let changed = false;
  const quoted = problems.map((problem) => {
    const message = quoteWritten(problem.message, written);
    if (message === problem.message) return problem;
    changed = true;
    return { ...problem, message };
  });
  return changed ? quoted : problems;
}
