import { InputFileError } from '../system/errors.js';

/**
 * Whole-document JSON (a world file, `--schedule file.json`, the config file): parsed at once,
 * and on a syntax error refused as `file:line: not valid JSON: reason`, like every input file.
 * V8 names a position for some syntax errors and only a snippet for others, so the line comes
 * from our own scan of the text, which runs only on the failure path.
 */
export function parseJsonDocument(text: string, file: string): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(source);
  } catch (error) {
    const offset = jsonSyntaxErrorOffset(source);
    throw new InputFileError(file, lineAt(source, offset), `not valid JSON: ${jsonErrorReason(error)}`);
  }
}

/** V8's message without the quoted snippet of the file (it can span lines and leak content). */
export function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/,\s*".*" is not valid JSON$/s, '')
    .replace(/^JSON\.parse: /, '')
    .split('\n')[0]!;
}

const MAX_SCAN_DEPTH = 1000;

/** 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Offset of the first JSON syntax error in `text` (text.length when it ends too early).
 * A plain recursive-descent scan of RFC 8259; nesting past MAX_SCAN_DEPTH counts as the error.
 * `onKey` is told every object key in order, with its offset and its path (array indexes as
 * text): a settings file's messages name the key's line (input/map-file.ts).
 */
export function jsonSyntaxErrorOffset(text: string, onKey?: (key: string, offset: number, path: readonly string[]) => void): number {
  let pos = 0;
  const path: string[] = [];
  const fail = (): never => {
    throw pos;
  };
  const space = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, pos)) pos += word.length;
    else fail();
  };
  const string = () => {
    pos++; // opening quote
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        return;
      }
      if (c < 0x20) fail();
      if (c === 0x5c) {
        const next = text[pos + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) fail();
          pos += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) fail();
        pos += 2;
        continue;
      }
      pos++;
    }
    fail();
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (match === null) fail();
    pos += match![0].length;
  };
  let depth = 0;
  const value = (): void => {
    space();
    const c = text[pos];
    // Far deeper than any document examctl reads: report the spot instead of overflowing the stack.
    if ((c === '{' || c === '[') && depth >= MAX_SCAN_DEPTH) fail();
    depth += 1;
    try {
      openValue(c);
    } finally {
      depth -= 1;
    }
  };
  const openValue = (c: string | undefined): void => {
    if (c === '{') {
      pos++;
      space();
      if (text[pos] === '}') {
        pos++;
        return;
      }
      for (;;) {
        space();
        if (text[pos] !== '"') fail();
        const start = pos;
        string();
        space();
        if (text[pos] !== ':') fail();
        pos++;
        if (onKey !== undefined) {
          const key = JSON.parse(text.slice(start, pos - 1).trimEnd()) as string;
          path.push(key);
          onKey(key, start, path);
        }
        value();
        if (onKey !== undefined) path.pop();
        space();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return;
        }
        fail();
      }
    }
    if (c === '[') {
      pos++;
      space();
      if (text[pos] === ']') {
        pos++;
        return;
      }
      for (let i = 0; ; i++) {
        if (onKey !== undefined) path.push(String(i));
        value();
        if (onKey !== undefined) path.pop();
        space();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return;
        }
        fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    return number();
  };
  try {
    value();
    space();
    return pos < text.length ? pos : text.length;
  } catch (offset) {
    if (typeof offset === 'number') return offset;
    throw offset;
  }
}
