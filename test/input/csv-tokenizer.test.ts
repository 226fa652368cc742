import { describe, it, expect } from 'vitest';
import { parse } from 'csv-parse/sync';
import { CsvTokenizer, MAX_RECORD_CHARS } from '../../src/input/csv-tokenizer.js';

type Result = { records: string[][]; lines: number[]; error?: string };

/** The oracle for input without blanks next to a quote: csv-parse with the reader's options. */
function viaCsvParse(text: string, delimiter: string): Result {
  try {
    const records = parse(text, { delimiter, relax_column_count: true, bom: false }) as string[][];
    return { records, lines: records.map((cells) => cells.join('').split('\n').length - 1) };
  } catch (error) {
    return { records: [], lines: [], error: (error as { code?: string }).code ?? String(error) };
  }
}

/**
 * The oracle for blanks around quoted fields: csv-parse with `ltrim`/`rtrim`, which also trims
 * unquoted cells (the tokenizer leaves that to the reader, which trims every cell), so both
 * sides are compared with their cells trimmed; line feeds are counted in the raw record text.
 * Where a quote follows the blanks after a closing quote csv-parse answers with one of four
 * codes (quirks of its trimming); the exact codes are the first test's job, so here a refusal
 * is compared as a refusal. Records of blanks only are left out on
 * both sides (csv-parse drops a last one; the reader skips them all).
 */
function viaCsvParseTrimmed(text: string, delimiter: string): Result {
  try {
    const parsed = parse(text, { delimiter, relax_column_count: true, bom: false, ltrim: true, rtrim: true, raw: true }) as unknown as { record: string[]; raw: string }[];
    const rd = /(\r\n|\r|\n)$/.exec(parsed[0]?.raw ?? '')?.[1];
    const lines = parsed.map(({ raw }) => raw.split('\n').length - 1 - (rd !== undefined && rd.includes('\n') && raw.endsWith(rd) ? 1 : 0));
    return withoutBlankRecords({ records: trimmed(parsed.map(({ record }) => record)), lines });
  } catch (error) {
    return { records: [], lines: [], error: misplaced((error as { code?: string }).code ?? String(error)) };
  }
}

function misplaced(code: string | undefined): string | undefined {
  return code === undefined ? undefined : 'REFUSED';
}

/** The tokenizer fed in the given pieces (chunk borders anywhere, as a file read delivers them). */
function viaTokenizer(pieces: string[], delimiter: string): Result {
  const records: string[][] = [];
  const lines: number[] = [];
  const tokenizer = new CsvTokenizer(delimiter, (cells, extra) => {
    records.push(cells);
    lines.push(extra);
  });
  for (let i = 0; i < pieces.length; i++) {
    if (!tokenizer.push(pieces[i] as string, i === pieces.length - 1)) return { records: [], lines: [], error: tokenizer.error };
  }
  return { records, lines };
}

function trimmed(records: string[][]): string[][] {
  return records.map((cells) => cells.map((cell) => cell.trim()));
}

/** The tokenizer's result as the trimmed oracle sees it. */
function asTrimmed(result: Result): Result {
  return result.error !== undefined ? { ...result, error: misplaced(result.error) } : withoutBlankRecords({ ...result, records: trimmed(result.records) });
}

/** csv-parse's trimming drops a last record of blanks; the reader skips blank records anyway. */
function withoutBlankRecords(result: Result): Result {
  const keep = result.records.map((cells) => cells.some((cell) => cell !== ''));
  return { records: result.records.filter((_, i) => keep[i]), lines: result.lines.filter((_, i) => keep[i]) };
}

/** A small deterministic PRNG, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ATOMS = ['a', 'bc', ',', ';', '\t', '"', '""', '\r', '\n', '\r\n', ' ', 'é', '😀', ',"x,y",', '"q"'];
/** For blanks around quotes: one kind of line break (csv-parse's trimming treats a CR that is data oddly). */
const BLANK_ATOMS = ['a', 'bc', ',', ';', '\t', '"', '""', '\n', ' ', '  ', 'é', ', "s" ,', '"q" ', ' "x,y"', '\t"t"\t'];

function randomCsv(next: () => number, atoms = ATOMS, maxAtoms = 30): string {
  const length = Math.floor(next() * maxAtoms);
  let text = '';
  for (let i = 0; i < length; i++) text += atoms[Math.floor(next() * atoms.length)];
  return text;
}

function randomPieces(text: string, next: () => number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    const size = 1 + Math.floor(next() * 6);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  pieces.push('');
  return pieces;
}

/** A blank (space, or a tab that is not the delimiter) next to a quote: where the grammar differs from csv-parse's defaults. */
function blankNextToQuote(text: string, delimiter: string): boolean {
  return (delimiter === '\t' ? /[ ]"|"[ ]/ : /[ \t]"|"[ \t]/).test(text);
}

describe('CsvTokenizer', () => {
  it('reads what csv-parse reads, errors included, whatever the chunk borders (differential, 10k random inputs)', () => {
    const seen = { errors: new Set<string>(), multiRecord: 0, multiLineCell: 0, compared: 0 };
    for (let seed = 1; seed <= 10_000; seed++) {
      const next = random(seed);
      const text = randomCsv(next);
      const delimiter = [',', ';', '\t'][seed % 3] as string;
      // Blanks next to a quote are the trimmed oracle's (next test); here csv-parse's defaults hold exactly.
      if (blankNextToQuote(text, delimiter)) continue;
      seen.compared += 1;
      const expected = viaCsvParse(text, delimiter);
      const whole = viaTokenizer([text], delimiter);
      const pieces = viaTokenizer(randomPieces(text, next), delimiter);
      if (JSON.stringify(whole) !== JSON.stringify(expected) || JSON.stringify(pieces) !== JSON.stringify(expected)) {
        expect({ seed, text, whole, pieces }).toEqual({ seed, text, whole: expected, pieces: expected });
      }
      if (expected.error !== undefined) seen.errors.add(expected.error);
      if (expected.records.length > 1) seen.multiRecord += 1;
      if (expected.lines.some((n) => n > 0)) seen.multiLineCell += 1;
    }
    // The random corpus must reach every error and the interesting shapes, or it proves little.
    expect(seen.compared).toBeGreaterThan(6000);
    expect([...seen.errors].sort()).toEqual(['CSV_INVALID_CLOSING_QUOTE', 'CSV_QUOTE_NOT_CLOSED', 'INVALID_OPENING_QUOTE']);
    expect(seen.multiRecord).toBeGreaterThan(400);
    expect(seen.multiLineCell).toBeGreaterThan(80);
  });

  it('reads blanks around quoted fields as csv-parse with ltrim/rtrim does (differential, 10k random inputs)', () => {
    const seen = { refused: 0, blankQuoted: 0 };
    for (let seed = 1; seed <= 10_000; seed++) {
      const next = random(seed);
      const text = randomCsv(next, BLANK_ATOMS, 14);
      const delimiter = [',', ';', '\t'][seed % 3] as string;
      // csv-parse reads `"" ""` as one empty field (a quirk); the tokenizer refuses a quote after
      // a closed quoted field (a direct test below), so quote-blanks-quote is left out here.
      if (/"[ \t]+"/.test(text)) continue;
      const expected = viaCsvParseTrimmed(text, delimiter);
      const whole = asTrimmed(viaTokenizer([text], delimiter));
      const pieces = asTrimmed(viaTokenizer(randomPieces(text, next), delimiter));
      if (JSON.stringify(whole) !== JSON.stringify(expected) || JSON.stringify(pieces) !== JSON.stringify(expected)) {
        expect({ seed, delimiter, text, whole, pieces }).toEqual({ seed, delimiter, text, whole: expected, pieces: expected });
      }
      if (expected.error !== undefined) seen.refused += 1;
      else if (blankNextToQuote(text, delimiter)) seen.blankQuoted += 1;
    }
    expect(seen.refused).toBeGreaterThan(500);
    expect(seen.blankQuoted).toBeGreaterThan(500);
  });

  it('drops blanks around a quoted field and still refuses a quote inside text', () => {
    expect(viaTokenizer(['n-2, "A" ,B\n'], ',').records).toEqual([['n-2', 'A', 'B']]);
    expect(viaTokenizer(['x;\t"a;b"\t ;y\r\n'], ';').records).toEqual([['x', 'a;b', 'y']]);
    // A tab delimiter is not a blank: the empty cell before the quoted one stays.
    expect(viaTokenizer(['x\t\t"a"\n'], '\t').records).toEqual([['x', '', 'a']]);
    // Blanks cut by a chunk border before the quote or before the line break.
    expect(viaTokenizer(['a, ', ' ', '"b" ', ' ', '\nc,d\n', ''], ',').records).toEqual([['a', 'b'], ['c', 'd']]);
    const quoteInText = new CsvTokenizer(',', () => {});
    expect(quoteInText.push('a, x"b",c\n', true)).toBe(false);
    expect(quoteInText.error).toBe('INVALID_OPENING_QUOTE');
    const twoQuoted = new CsvTokenizer(',', () => {});
    expect(twoQuoted.push('a,"" ""\n', true)).toBe(false);
    expect(twoQuoted.error).toBe('INVALID_OPENING_QUOTE');
    const textAfterQuote = new CsvTokenizer(',', () => {});
    expect(textAfterQuote.push('a, "b" c\n', true)).toBe(false);
    expect(textAfterQuote.error).toBe('CSV_INVALID_CLOSING_QUOTE');
  });

  it('cuts plain records, quoted delimiters, doubled quotes and quoted line breaks', () => {
    const result = viaTokenizer(['id,name\r\n1,"Smith, ""J""\r\nline"\r\n2,x\r\n'], ',');
    expect(result).toEqual({
      records: [
        ['id', 'name'],
        ['1', 'Smith, "J"\r\nline'],
        ['2', 'x'],
      ],
      lines: [0, 1, 0],
    });
  });

  it('takes the first line break as the record delimiter: a lone LF in a CRLF file is data', () => {
    expect(viaTokenizer(['a,b\r\nc\nd,e\r\n'], ',').records).toEqual([
      ['a', 'b'],
      ['c\nd', 'e'],
    ]);
  });

  it('refuses a runaway quote once the record passes the size limit, without holding the rest of the file', () => {
    const tokenizer = new CsvTokenizer(',', () => {});
    expect(tokenizer.push('id\n"open', false)).toBe(true);
    let ok = true;
    for (let i = 0; i < 200 && ok; i++) ok = tokenizer.push('x'.repeat(1000), false);
    expect(ok).toBe(false);
    expect(tokenizer.error).toBe('CSV_MAX_RECORD_SIZE');
    expect(MAX_RECORD_CHARS).toBe(128_000);
  });
});
