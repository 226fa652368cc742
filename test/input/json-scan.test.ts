/**
 * The one JSON scanner (system/json-scan.ts): a value cut at any point between two chunks scans
 * as the whole does; nesting far past any stack is a fault, not an overflow; faults name the line,
 * the column and what was expected, and quote nothing of the text.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  JsonFault,
  JsonScanner,
  parseJson,
  parseJsonYielding,
  scanJson,
  scanJsonYielding,
  stopJsonParsesOn,
  YIELD_CHARS,
} from '../../src/system/json-scan.js';
import { InterruptedError } from '../../src/system/errors.js';

const fault = (run: () => unknown): JsonFault => {
  try {
    run();
  } catch (error) {
    if (error instanceof JsonFault) return error;
    throw error;
  }
  throw new Error('no fault');
};

describe('JsonScanner', () => {
  it('a value cut at every point between two texts ends where the whole one does, counting the same', () => {
    const text = '{"a": [1, -2.5e+3, true, false, null, "x\\"y\\u00e9\\\\"],\n "b": {"c": 12345, "d": ""}}';
    for (const strict of [false, true]) {
      for (let cut = 1; cut < text.length; cut++) {
        // Each object has 2 keys: a key cut by the texts' border counts once.
        const scanner = new JsonScanner({ depth: 8, keys: 2 }, { strict });
        expect(scanner.scanValue(text.slice(0, cut), 0, false), `cut at ${cut}`).toBe(-1);
        const rest = text.slice(scanner.resumeAt);
        scanner.shift(scanner.resumeAt);
        expect(scanner.scanValue(rest, 0, true), `cut at ${cut}`).toBe(rest.length);
        expect([scanner.keys, scanner.entries, scanner.line]).toEqual([4, 10, 2]);
      }
    }
  });

  it('nesting 1,000,000 deep is a fault at the limit, with no stack used', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const error = fault(() => parseJson(deep, { depth: 64 }));
    expect([error.kind, error.line, error.column]).toEqual(['depth', 1, 65]);
    expect(error.message).toBe(
      'nested too deep: objects and arrays nested deeper than 64 levels (column 65); the limit keeps a hostile file from exhausting the stack',
    );
  });

  it.each([
    ['a token', 'ghp_S3cretToken', 1, 1, 'not valid JSON: expected a value at column 1'],
    [
      'a trailing comma',
      '{\n  "a": 1,\n}',
      3,
      1,
      'not valid JSON: expected a string, the next key (no "," after the last member) at column 1',
    ],
    ['a missing colon', '{"Secret-1" 2}', 1, 13, 'not valid JSON: expected ":" after the key at column 13'],
    [
      'a control character',
      '["tab\there"]',
      1,
      6,
      'not valid JSON: expected an escape (\\t, \\u0000) for a control character in a string at column 6',
    ],
    [
      'a bad escape',
      '["S3cr\\x"]',
      1,
      7,
      'not valid JSON: expected an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits at column 7',
    ],
    ['a number JSON refuses', '[01]', 1, 3, 'not valid JSON: expected "," or "]" at column 3'],
    ['an early end', '{"a": [1,', 1, 10, 'not valid JSON: the text ends early, expected a value at column 10'],
    [
      'a number of 1,000 digits',
      `[${'9'.repeat(1000)}]`,
      1,
      402,
      'not valid JSON: expected a number of at most 400 characters at column 402',
    ],
    [
      'a second value',
      '{} {"Secret":1}',
      1,
      4,
      'not valid JSON: expected the end of the text (one value only) at column 4',
    ],
  ])('%s: the line, the column and what was expected; nothing of the text', (_what, text, line, column, message) => {
    const error = fault(() => parseJson(text, { depth: 8 }));
    expect([error.line, error.column, error.message]).toEqual([line, column, message]);
    expect(error.message).not.toMatch(/S3cr|Secret|ghp|tab|here/);
  });

  it('entries are bounded, members and elements alike', () => {
    expect(scanJson('{"a":[1,2],"b":{}}', { depth: 4, entries: 4 }).entries).toBe(4);
    const error = fault(() => scanJson('{"a":[1,2],"b":{},"c":0}', { depth: 4, entries: 4 }));
    expect([error.kind, error.column, error.message]).toEqual([
      'entries',
      23,
      'too many entries: more than 4 entries (column 23)',
    ]);
  });

  it('keys are bounded per object, each nested one counted on its own', () => {
    expect(scanJson('[{"a":{"b":1,"c":{}},"d":[{"e":0,"f":1}]},{"g":1,"h":2}]', { depth: 8, keys: 2 }).keys).toBe(8);
    const error = fault(() => scanJson('{"a":{"b":1,"c":2},"d":3,"e":4}', { depth: 8, keys: 2 }));
    expect([error.kind, error.column, error.message]).toEqual([
      'entries',
      26,
      'too many entries: more than 2 keys in one object (column 26)',
    ]);
  });

  it('a string of many escapes is searched once: characters searched stay within a few times its length (issue 81)', () => {
    // Counted, not timed: each indexOf's span (from where it starts to what it finds) summed; a search
    // for the closing quote after every backslash made this quadratic (a 1.6 MB body blocked for 46 s).
    const escapes = 20_000;
    const texts = [
      JSON.stringify({ a: '\\'.repeat(escapes), b: 'x' }),
      JSON.stringify(['"'.repeat(escapes), '\\n'.repeat(escapes / 2), 'é\\"'.repeat(escapes / 4)]),
      `[${'"\\\\",'.repeat(escapes / 4)}"\\\\"]`,
    ];
    for (const text of texts) {
      let searched = 0;
      const indexOf = String.prototype.indexOf;
      const spy = vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, ...args) {
        const found = indexOf.apply(this, args);
        searched += (found === -1 ? this.length : found) - (args[1] ?? 0);
        return found;
      });
      try {
        scanJson(text, { depth: 8 });
      } finally {
        spy.mockRestore();
      }
      expect(searched).toBeLessThanOrEqual(4 * text.length);
      expect(parseJson(text, { depth: 8 })).toEqual(JSON.parse(text));
    }
  });

  it('escape-heavy strings cut at every point between two texts scan as the whole', () => {
    const text = `{"a":"${'\\\\\\"\\u00e9'.repeat(4)}","b":["\\\\",""]}`;
    expect(scanJson(text, { depth: 4 }).keys).toBe(2);
    for (let cut = 1; cut < text.length; cut++) {
      const scanner = new JsonScanner({ depth: 4 });
      expect(scanner.scanValue(text.slice(0, cut), 0, false), `cut at ${cut}`).toBe(-1);
      const rest = text.slice(scanner.resumeAt);
      scanner.shift(scanner.resumeAt);
      expect(scanner.scanValue(rest, 0, true), `cut at ${cut}`).toBe(rest.length);
    }
  });

  it('a long text parsed in pieces lets the event loop turn between them, and a signal ends it at the next piece', async () => {
    // Counted turns, not time: `local serve` answers other clients while a 16 MiB body is scanned.
    const text = JSON.stringify({ a: '\\'.repeat(2 * YIELD_CHARS), b: [1, 'x'] });
    let turns = 0;
    let done = false;
    const ticker = (): void => {
      turns++;
      if (!done) setImmediate(ticker);
    };
    setImmediate(ticker);
    const parsed = await parseJsonYielding(text, { depth: 8 });
    done = true;
    expect(parsed).toEqual(JSON.parse(text));
    expect(turns).toBeGreaterThanOrEqual(Math.floor(text.length / YIELD_CHARS));

    const stop = new AbortController();
    const parsing = parseJsonYielding(text, { depth: 8 }, stop.signal);
    stop.abort(new Error('interrupted'));
    await expect(parsing).rejects.toThrow('interrupted');
    await expect(parseJsonYielding(`${text} x`, { depth: 8 })).rejects.toThrow(/one value only/);
    await expect(parseJsonYielding('{"a": [1, 2}', { depth: 8 })).rejects.toThrow(JsonFault);
  });

  it('a short text parsed without the scan gets the verdict the scan and JSON.parse give (a body of local serve)', async () => {
    const verdict = async (run: () => unknown): Promise<unknown> => {
      try {
        return { value: await run() };
      } catch (error) {
        if (error instanceof JsonFault) return { fault: error.kind };
        throw error;
      }
    };
    // Short texts of brackets, strings and numbers, at a small depth bound: nesting past it, brackets in strings.
    const piece = fc.constantFrom('[', ']', '{', '}', '"', '"a":', '"[{":', ',', '1', '-2.5e3', 'true', ' ', '\\', 'x');
    const text = fc.oneof(
      fc.array(piece, { maxLength: 60 }).map((parts) => parts.join('')),
      fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
    );
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 4 }), async (json, depth) => {
        fc.pre(json.length <= 400);
        const limits = { depth };
        expect(await verdict(() => parseJsonYielding(json, limits))).toEqual(
          await verdict(() => parseJson(json, limits)),
        );
      }),
      { numRuns: 2000 },
    );
    // A number over 400 characters is refused either way: too long a text for the short way.
    await expect(parseJsonYielding(`[${'1'.repeat(401)}]`, { depth: 8 })).rejects.toThrow(/at most 400 characters/);
    await expect(parseJsonYielding('[[[[1]]]]', { depth: 3 })).rejects.toMatchObject({ kind: 'depth' });
  });

  it("the CLI's stop ends any long parse at the next piece, at a marker (issue 81: a map file, a world file, a memory export, a state document)", async () => {
    const text = JSON.stringify({ a: '\\'.repeat(4 * YIELD_CHARS) });
    const pieces = Math.ceil(text.length / YIELD_CHARS);
    const stop = new AbortController();
    let seen = 0;
    // The marker: the stop comes after the second piece, as a Ctrl-C's handler runs between two.
    stopJsonParsesOn(stop.signal, () => (++seen === 2 ? stop.abort() : undefined));
    try {
      const error = await scanJsonYielding(text, { depth: 8 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InterruptedError);
      expect((error as InterruptedError).exitCode).toBe(130);
      // Stopped at the piece after the marker's, not at the end of the text.
      expect(seen).toBe(2);
      expect(pieces).toBeGreaterThan(4);
      await expect(parseJsonYielding(text, { depth: 8 })).rejects.toBeInstanceOf(InterruptedError);
      // A fault is the reader's to say: the scan before its parse passes it over; a short text never waits.
      stopJsonParsesOn(undefined);
      await expect(scanJsonYielding(`${text} x`, { depth: 8 })).resolves.toBeUndefined();
      await expect(scanJsonYielding('{"a": [1, 2}', { depth: 8 })).resolves.toBeUndefined();
    } finally {
      stopJsonParsesOn(undefined);
    }
  });
});
