import { describe, it, expect } from 'vitest';
import { parse } from 'csv-parse/sync';
import { CsvTokenizer, MAX_RECORD_CHARS } from '../../src/input/csv-tokenizer.js';

type Result = { records: string[][]; lines: number[]; error?: string };

/** The oracle: csv-parse with the options the reader used before it had its own tokenizer. */
function viaCsvParse(text: string, delimiter: string): Result {
  try {
    const records = parse(text, { delimiter, relax_column_count: true, bom: false }) as string[][];
    return { records, lines: records.map((cells) => cells.join('').split('\n').length - 1) };
  } catch (error) {
    return { records: [], lines: [], error: (error as { code?: string }).code ?? String(error) };
  }
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

/** A small deterministic PRNG, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ATOMS = ['a', 'bc', ',', ';', '\t', '"', '""', '\r', '\n', '\r\n', ' ', 'é', '😀', ',"x,y",', '"q"'];

function randomCsv(next: () => number): string {
  const length = Math.floor(next() * 30);
  let text = '';
  for (let i = 0; i < length; i++) text += ATOMS[Math.floor(next() * ATOMS.length)];
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

describe('CsvTokenizer', () => {
  it('reads what csv-parse reads, errors included, whatever the chunk borders (differential, 10k random inputs)', () => {
    const seen = { errors: new Set<string>(), multiRecord: 0, multiLineCell: 0 };
    for (let seed = 1; seed <= 10_000; seed++) {
      const next = random(seed);
      const text = randomCsv(next);
      const delimiter = [',', ';', '\t'][seed % 3] as string;
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
    expect([...seen.errors].sort()).toEqual(['CSV_INVALID_CLOSING_QUOTE', 'CSV_QUOTE_NOT_CLOSED', 'INVALID_OPENING_QUOTE']);
    expect(seen.multiRecord).toBeGreaterThan(500);
    expect(seen.multiLineCell).toBeGreaterThan(100);
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
