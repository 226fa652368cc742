import { describe, expect, it } from 'vitest';
import { decodeChecksummedLine, encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { checkJournalLine, type RunJournalLine } from '../../src/runs/journal-lines.js';
import { JournalGroupEncoder, outcomeBody, refBody } from '../../src/runs/journal-encoder.js';

/** A line's body as the run journal writes it: its item lines through the fast encoders, the run's own lines through JSON.stringify. */
const journalBody = (line: RunJournalLine): string =>
  line.t === 'sent' || line.t === 'unsent'
    ? refBody(line.t, line, line.t === 'unsent' ? line.reason : undefined)
    : line.t === 'outcome'
      ? outcomeBody(line)
      : JSON.stringify(line);

const lines: RunJournalLine[] = [
  { t: 'sent', n: 0, source: { file: 'users.csv', line: 2, index: 0 }, id: 'U-0' },
  { t: 'sent', n: 1, source: { file: 'users.csv', line: 3 }, id: null },
  { t: 'unsent', n: 2, source: { file: 'users.csv', line: 4, index: 2 }, id: 'quote " back \\ slash' },
  {
    t: 'outcome',
    n: 3,
    source: { file: 'users.csv', line: 5, index: 3 },
    id: 'U-3',
    status: 'ok',
    errors: [],
    transient: false,
  },
  {
    t: 'outcome',
    n: 4,
    source: { file: 'ünïcode "x".csv', line: 6, index: 4 },
    id: 'U-4 \u2028 😀 \ud800 \u0001',
    status: 'failed',
    errors: [{ field: 'Email', code: 209, message: 'bad ✗', line: 6 }],
    action: 'created',
    note: 'already existed',
    removed: ['H-A', 'H-A:coordinator'],
    transient: true,
    committed: 'AAAAAAAAAAAAAAAAAAAAAA',
  },
  {
    t: 'end',
    at: '2026-11-23T00:00:00.000Z',
    reason: 'completed',
    summary: { total: 5, ok: 1, partial: 0, failed: 1, skipped: 3 },
  },
];

/** What the journal wrote before it encoded lines itself: JSON.stringify, then the store's checksummed line. */
const written = (line: RunJournalLine): string => encodeChecksummedLine(JSON.stringify(line));

describe('the run journal line encoder', () => {
  it('each body is the line JSON.stringify writes (same value), so every examctl reads it', () => {
    for (const line of lines) expect(JSON.parse(journalBody(line))).toEqual(JSON.parse(JSON.stringify(line)));
  });

  it("an outcome's commit head is read back; one that is not a head makes the line damaged", () => {
    const outcome = lines[4] as Extract<RunJournalLine, { t: 'outcome' }>;
    const check = (line: object) =>
      checkJournalLine(Buffer.from(encodeChecksummedLine(JSON.stringify(line)).slice(0, -1)), false);
    expect(check(outcome)).toMatchObject({ committed: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(check({ ...outcome, committed: 'A'.repeat(23) })).toBe('malformed outcome line');
  });

  it('an optional field left undefined is not written, as JSON.stringify leaves it out', () => {
    const { t: _t, ...outcome } = {
      ...(lines[3] as Extract<RunJournalLine, { t: 'outcome' }>),
      action: undefined,
      note: undefined,
      removed: undefined,
      committed: undefined,
    };
    expect(outcomeBody(outcome)).not.toMatch(/action|note|removed|committed/);
    expect(JSON.parse(outcomeBody(outcome))).toEqual({ ...JSON.parse(JSON.stringify(lines[3])) });
  });

  it('a group is the bytes the checksummed lines were, ASCII or not, and each line decodes to its value', () => {
    const encoder = new JournalGroupEncoder();
    for (const group of [lines.slice(0, 4), lines, lines.slice(4, 5), [lines[0]!]]) {
      const bytes = Buffer.from(encoder.encode(group.map(journalBody)));
      expect(
        bytes.equals(Buffer.from(group.map((line) => encodeChecksummedLine(journalBody(line))).join(''), 'utf8')),
      ).toBe(true);
      const decoded = bytes
        .toString('utf8')
        .split('\n')
        .slice(0, -1)
        .map((text) => decodeChecksummedLine(Buffer.from(text, 'utf8')));
      expect(decoded).toEqual(group.map((line) => ({ ok: true, body: JSON.parse(JSON.stringify(line)) })));
    }
    // The exact bytes an older examctl wrote for the same line, where the key order is the same.
    expect(encoder.encode([journalBody(lines[0]!)]).toString('utf8')).toBe(written(lines[0]!));
  });

  it('a group larger than the reused buffer is written whole; a damaged byte fails its checksum', () => {
    const encoder = new JournalGroupEncoder();
    const many = Array.from({ length: 3000 }, (_, n) =>
      journalBody({
        t: 'sent',
        n,
        source: { file: 'users.csv', line: n + 2, index: n },
        id: `U-${'é'.repeat(n % 7)}${n}`,
      }),
    );
    const bytes = Buffer.from(encoder.encode(many));
    const texts = bytes.toString('utf8').split('\n').slice(0, -1);
    expect(texts).toHaveLength(3000);
    expect(
      texts.every(
        (text, n) =>
          decodeChecksummedLine(Buffer.from(text, 'utf8')).ok && (JSON.parse(text) as { b: { n: number } }).b.n === n,
      ),
    ).toBe(true);
    const damaged = Buffer.from(texts[10]!.replace('"n":10', '"n":19'), 'utf8');
    expect(decodeChecksummedLine(damaged)).toEqual({ ok: false, reason: 'checksum mismatch' });
  });
});
