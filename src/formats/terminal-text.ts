/*
 * The one gate for text that reaches a terminal: what becomes '?' and why, what JSON has as
 * escapes, what is left alone (report files): docs/security.md, "Terminals".
 */
import { NAME_FORBIDDEN_CLASS } from '../domain/forbidden-characters.js';
import { redactUrl } from '../domain/problem.js';
import type { TextSink } from '../system/text-sink.js';

// The characters a name may not hold (one definition of the set) and the line and paragraph
// separators, but for tab and line feed, which each function below treats in its own way.
const UNSAFE_CLASS = `${NAME_FORBIDDEN_CLASS}\\u2028\\u2029`;
const UNSAFE = new RegExp(`(?![\\t\\n])[${UNSAFE_CLASS}]`, 'g');
// Of those, what JSON.stringify leaves raw: all but the C0 controls (examctl's colours are ESC).
const UNESCAPED = new RegExp(`(?![\\u0000-\\u001f])[${UNSAFE_CLASS}]`, 'g');

/**
 * One line of text: a line break shown as `\n` (`\r` for a carriage return), so a value cannot forge a line
 * or read as two values; a tab becomes a space; the rest as above.
 */
export function terminalLine(text: string): string {
  return text.replace(/[\r\n\t]/g, (c) => LINE_BREAK_SHOWN[c] as string).replace(UNSAFE, '?');
}

const LINE_BREAK_SHOWN: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': ' ' };

/** A line on stderr through the gate: `terminalLine` and a line feed. */
export function say(to: { stderr: TextSink }, text: string): void | Promise<void> {
  return to.stderr.write(`${terminalLine(text)}\n`);
}

/** A line of results on stdout through the gate, as `say`. */
export function printLine(to: { stdout: TextSink }, text: string): void | Promise<void> {
  return to.stdout.write(`${terminalLine(text)}\n`);
}

/** Text over lines: line breaks and tabs kept, carriage returns (they overwrite a line) and the rest as above. */
export function terminalLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, '?');
}

/** Data on stdout (CSV): on a terminal it passes the gate (line breaks kept); to a file or pipe it is kept exactly. */
export function dataForStdout(text: string, stdoutIsTerminal: boolean | undefined): string {
  return stdoutIsTerminal === true ? terminalLines(text) : text;
}

/** Stdout on a terminal: JSON's raw characters above written as `\uXXXX` escapes, so the document stays exact. */
export function terminalStdout(sink: TextSink): TextSink {
  return {
    write: (text) => sink.write(text.replace(UNESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)),
  };
}

/** A commander refusal without `error: `, its quoted argument stripped of an address's user info, query, fragment. */
export function commanderWords(text: string): string {
  return text
    .replace(/^error: /, '')
    .replace(/argument '([^]*?)' is invalid/, (_, value: string) => `argument '${redactUrl(value)}' is invalid`);
}
