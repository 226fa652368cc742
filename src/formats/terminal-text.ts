/*
 * Text that reaches a terminal from outside the program (an id or a file name from the input, a
 * message from the service) must not be able to act on it: C0 and C1 control characters (ESC
 * starts sequences that recolour, move the cursor, clear the screen, set the window title or,
 * in some terminals, write the clipboard), and the bidirectional embeddings, overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069, the set names may not hold on input), one of which
 * reorders what the terminal shows after it on the line. Each becomes '?'. JSON output is left
 * alone: JSON.stringify escapes the control characters, and a program reading it wants the value.
 */
import { NAME_FORBIDDEN_CLASS } from '../domain/forbidden-characters.js';
import type { TextSink } from '../system/text-sink.js';

// The characters a name may not hold (one definition of the set), but for tab and line feed,
// which each function below treats in its own way.
const UNSAFE = new RegExp(`(?![\\t\\n])[${NAME_FORBIDDEN_CLASS}]`, 'g');

/**
 * One line of text: a line break is shown as `\n` (`\r` for a carriage return), so a value cannot
 * forge a line of its own and a message quoting `H-NORTH` and `H-SOUTH` on two lines of a cell
 * does not read as one value with a space; a tab becomes a space; the rest as above.
 */
export function terminalLine(text: string): string {
  return text.replace(/[\r\n\t]/g, (c) => LINE_BREAK_SHOWN[c] as string).replace(UNSAFE, '?');
}

const LINE_BREAK_SHOWN: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': ' ' };

/** A line on stderr through the gate: `terminalLine` and a line feed. */
export function say(to: { stderr: TextSink }, text: string): void | Promise<void> {
  return to.stderr.write(`${terminalLine(text)}\n`);
}

/** Text that may span lines: its line breaks and tabs kept, carriage returns (which overwrite a line) and the rest as above. */
export function terminalLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, '?');
}

/**
 * Text a command writes to stdout as data (CSV): on a terminal it is shown, so it passes the
 * gate (line breaks kept); into a file or pipe it is kept exactly.
 */
export function dataForStdout(text: string, stdoutIsTerminal: boolean | undefined): string {
  return stdoutIsTerminal === true ? terminalLines(text) : text;
}
