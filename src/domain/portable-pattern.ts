/*
 * A domain pattern rewritten to mean the same in every regex engine that reads the published schemas;
 * what is rewritten, what refused: docs/remote.md, "Patterns mean the same in every regex engine".
 */

/** ECMA-262 WhiteSpace and LineTerminator: what `\s` and String.prototype.trim() mean in JavaScript. */
export const ECMA_WHITESPACE_CLASS =
  '\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** End of input in every engine (`$` is not, see above). */
export const END_OF_INPUT = '(?![\\s\\S])';

/** ECMA's `.` without the s flag: any character but a line terminator. */
const ECMA_DOT = '[^\\n\\r\\u2028\\u2029]';

export class UnportablePatternError extends Error {
  constructor(source: string, at: number, what: string) {
    super(`pattern ${JSON.stringify(source)}: ${what} at offset ${at} has no portable rewrite`);
    this.name = 'UnportablePatternError';
  }
}

/** The escapes copied as they are: control characters and escaped punctuation mean the same everywhere. */
const PLAIN_ESCAPES = new Set(['t', 'n', 'r', 'f', ...'\\/^$.*+?()[]{}|-']);

export function portablePattern(source: string): string {
  let out = '';
  let inClass = false;
  const refuse = (at: number, what: string): never => {
    throw new UnportablePatternError(source, at, what);
  };
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined) refuse(i, 'a trailing backslash');
      if (next === 'u') {
        if (!/^[0-9A-Fa-f]{4}$/.test(source.slice(i + 2, i + 6))) refuse(i, 'a \\u escape without four hex digits');
        out += source.slice(i, i + 6);
        i += 5;
        continue;
      }
      if (next === 'x') {
        if (!/^[0-9A-Fa-f]{2}$/.test(source.slice(i + 2, i + 4))) refuse(i, 'a \\x escape without two hex digits');
        out += source.slice(i, i + 4);
        i += 3;
        continue;
      }
      i += 1;
      if (next === 's') out += inClass ? ECMA_WHITESPACE_CLASS : `[${ECMA_WHITESPACE_CLASS}]`;
      else if (next === 'S' && !inClass) out += `[^${ECMA_WHITESPACE_CLASS}]`;
      else if (next === 'd') out += inClass ? '0-9' : '[0-9]';
      else if (next === 'D' && !inClass) out += '[^0-9]';
      else if (next === 'v') out += '\\x0b';
      else if (PLAIN_ESCAPES.has(next!)) out += `\\${next}`;
      else refuse(i - 1, `\\${next}${inClass && (next === 'S' || next === 'D') ? ' inside a class' : ''}`);
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      // Java reads [ inside a class as a nested class, && as intersection; Python warns of set operations.
      else if (c === '[') refuse(i, 'an unescaped [ inside a class');
      else if ('&-|~'.includes(c) && source[i + 1] === c) refuse(i, `${c}${c} inside a class`);
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') {
        out += '^';
        i += 1;
      }
      // [] and []...] parse differently across engines.
      if (source[i + 1] === ']') refuse(i + 1, 'a ] first in a class');
      continue;
    }
    if (c === '$') out += END_OF_INPUT;
    else if (c === '.') out += ECMA_DOT;
    else if (c === '(' && source[i + 1] === '?' && !':=!'.includes(source[i + 2] ?? ''))
      refuse(i, `the group (?${source[i + 2] ?? ''}`);
    else out += c;
  }
  if (inClass) refuse(source.length, 'an unclosed class');
  return out;
}

/** A copy of a JSON Schema (or any JSON value) with every `pattern` keyword made portable. */
export function withPortablePatterns<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withPortablePatterns) as T;
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'pattern' && typeof value === 'string' ? portablePattern(value) : withPortablePatterns(value),
    ]),
  ) as T;
}
