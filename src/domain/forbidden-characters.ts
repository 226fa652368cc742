/**
 * The characters a name may not hold: C0 and C1 controls (NUL, ESC, newline, tab...), DEL, and the
 * bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) that make a name
 * display as something else. As the body of a character class, so the document's patterns reuse
 * it. A module of its own, without imports: the terminal output (report/terminal-text.ts), loaded
 * by every command, draws on the same set without loading the rest of the text rules.
 */
export const NAME_FORBIDDEN_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
