/**
 * The characters a name may not hold (docs/interpretations.md), as a character class's body the
 * patterns reuse. No imports: the terminal gate, loaded by every command, loads it alone.
 */
export const NAME_FORBIDDEN_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
