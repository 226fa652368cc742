import { describe, expect, it } from 'vitest';
import { InputFileError } from '../../src/system/errors.js';
import { parseJsonDocument } from '../../src/input/json-document.js';
import { scanJson } from '../../src/system/json-scan.js';

function failure(text: string): InputFileError {
  try {
    parseJsonDocument(text, 'w.json');
  } catch (error) {
    if (error instanceof InputFileError) return error;
    throw error;
  }
  throw new Error('parsed');
}

describe('parseJsonDocument', () => {
  it('parses a document with a byte-order mark', () => {
    expect(parseJsonDocument('\uFEFF{"a":[1,true,null,"x"]}', 'w.json')).toEqual({ a: [1, true, null, 'x'] });
  });

  it.each([
    ['a stray comma in an array', '{\n  "Roles": [,\n    {}\n  ]\n}', 2],
    ['a missing comma between members', '{\n"a": 1\n"b": 2\n}', 3],
    ['a trailing comma before }', '{\n"a": 1,\n}', 3],
    ['a raw line break inside a string', '{\n"a": "x\ny"\n}', 2],
    ['an unterminated document', '{\n"a": [1,\n2', 3],
    ['text after the document', '{}\n\nx', 3],
    ['a comment', '{\n// note\n"a": 1}', 2],
  ])('names the line of %s', (_what, text, line) => {
    const error = failure(text);
    expect(error.line).toBe(line);
    expect(error.message).toMatch(new RegExp(`^w\\.json:${line}: .*JSON`));
    expect(error.message).not.toContain('\n');
  });

  it('finds no fault in valid JSON, strict or not', () => {
    const text = '{"a": [1, -2.5e3, "\\u00e9\\n"], "b": {"c": false}}';
    expect(scanJson(text, { depth: 3 }, { strict: true }).entries).toBe(6);
    expect(scanJson(text, { depth: 3 }).keys).toBe(3);
  });

  it('refuses a key given twice in one object at any depth, naming the line, the key and the first one', () => {
    const error = failure('{\n  "Title": "Maths",\n  "Schedule": {"PIN": "1234",\n "Title": "x",\n "PIN": ""}\n}');
    expect(error.line).toBe(5);
    expect(error.message).toMatch(/^w\.json:5: .*"PIN".*\bline 3\b/);
    expect(failure('{"Users": [],\n"Users": []}').line).toBe(2);
  });

  it('takes one key in objects side by side, in arrays and nested', () => {
    const text = '{"a": {"x": 1, "y": {"x": 2}}, "b": {"x": 3}, "c": [{"x": 4}, {"x": 5, "a": 6}], "x": 7}';
    expect(parseJsonDocument(text, 'w.json')).toEqual(JSON.parse(text));
  });
});
