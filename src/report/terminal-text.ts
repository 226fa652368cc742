/*
 * Text that reaches a terminal from outside the program (an id or a file name from the input, a
 * message from the service) must not be able to act on it: C0 and C1 control characters (ESC
 * starts sequences that recolour, move the cursor, clear the screen, set the window title or,
 * in some terminals, write the clipboard), and the bidirectional embeddings, overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069, the set names may not hold on input), one of which
 * reorders what the terminal shows after it on the line. Each becomes '?'. JSON output is left
 * alone: JSON.stringify escapes the control characters, and a program reading it wants the value.
 */

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** One line of text: line breaks and tabs become spaces (a value cannot forge a line of its own), the rest as above. */
export function terminalLine(text: string): string {
  return text.replace(/\r\n|\r|\n|\t/g, ' ').replace(UNSAFE, '?');
}

/** Text that may span lines: its line breaks and tabs kept, carriage returns (which overwrite a line) and the rest as above. */
export function terminalLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, '?');
}
