import { describe, expect, it } from 'vitest';
import { ERROR_LIMITS, errorsOf } from '../../src/api/envelope-errors.js';
import { bodySnippet, readEnvelope } from '../../src/api/envelope-reader.js';

/** Issue 22 (2a, 3, 6): what a hostile answer can make of the client's parsing. */
describe('bounded, linear reading of answers', () => {
  it('an Errors member nested 2,000 deep is read without overflowing, its depth cut and said', () => {
    let nested: unknown = { Code: 1, Message: 'deep' };
    for (let i = 0; i < 2000; i += 1) nested = [nested];
    const text = JSON.stringify({ Content: null, Success: false, Errors: nested });
    // Too deep to be an answer of the API (readEnvelope refuses it, below); the walk holds anyway.
    expect(readEnvelope(text, 400)).toBeUndefined();
    const problems = errorsOf(JSON.parse(text));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain(`deeper than ${ERROR_LIMITS.depth} levels`);
  });

  it('an answer nested 100,000 deep is no envelope (JSON.stringify of it would overflow a report); 256 levels still are', () => {
    const deep = `{"Success":false,"Content":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(readEnvelope(deep, 400)).toBeUndefined();
    const fine = `{"Success":false,"Content":${'['.repeat(200)}"a]{}["${']'.repeat(200)}}`;
    expect(readEnvelope(fine, 400)?.Success).toBe(false);
  });

  it('a model-state map nested 2,000 deep does not overflow either', () => {
    let nested: unknown = 'leaf';
    for (let i = 0; i < 2000; i += 1) nested = { f: nested };
    expect(() => errorsOf({ Errors: nested })).not.toThrow();
  });

  it('300,000 messages become 100 and "… and 299900 more"; a message is cut at 64 KiB', () => {
    const errors = Array.from({ length: 300_000 }, (_, i) => ({ Code: 209, Message: `bad ${i}` }));
    const problems = errorsOf({ Errors: errors });
    expect(problems).toHaveLength(ERROR_LIMITS.problems + 1);
    expect(problems[0]?.message).toBe('bad 0');
    expect(problems.at(-1)?.message).toBe('… and 299900 more');
    const long = errorsOf({ Errors: ['x'.repeat(1_000_000)] });
    expect(long[0]?.message.length).toBeLessThanOrEqual(ERROR_LIMITS.messageChars + 1);
  });

  it("a long answer's Errors and GroupErrors keep 100 entries and a last one counting the rest, never built (trial31 F12)", () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ ExternalId: `H${i}`, Code: 131, Error: 'e' }));
    const text = JSON.stringify({
      Success: true,
      Errors: entries(3000),
      Content: { User: { ExternalId: 'u-1' }, GroupErrors: entries(5000), Errors: entries(3000) },
    });
    const content = readEnvelope<{ GroupErrors: unknown[]; Errors: unknown[] }>(text, 200)?.Content;
    expect(content?.GroupErrors).toHaveLength(ERROR_LIMITS.problems + 1);
    expect(content?.GroupErrors.slice(-2)).toEqual([{ ExternalId: 'H99', Code: 131, Error: 'e' }, '… and 4900 more']);
    const envelope = readEnvelope(text, 200) as { Errors: unknown[] };
    expect(envelope.Errors.at(-1)).toBe('… and 2900 more');
    // The problems said: 100 and the count of the rest, whose sum is every entry (trial36 F08: not "… and 1 more").
    const said = errorsOf(envelope);
    expect(said).toHaveLength(ERROR_LIMITS.problems + 1);
    expect(said.at(-1)?.message).toBe('… and 2900 more');
    // A list the pipeline reads entry by entry (an invigilator's Content.Errors) is whole.
    expect(content?.Errors).toHaveLength(3000);
  });

  it('Success is only the boolean true: "false", "true", 1 are not ok; a missing Success is derived', () => {
    expect(readEnvelope('{"Success":"false","Content":null}', 200)?.Success).toBe(false);
    expect(readEnvelope('{"Success":"true","Content":null}', 200)?.Success).toBe(false);
    expect(readEnvelope('{"success":1,"content":null}', 200)?.Success).toBe(false);
    expect(readEnvelope('{"Success":true,"Content":null}', 200)?.Success).toBe(true);
    expect(readEnvelope('{"Content":null,"Errors":null}', 200)?.Success).toBe(true);
    expect(readEnvelope('{"Content":null,"Errors":["x"]}', 200)?.Success).toBe(false);
  });

  it('bodySnippet strips tags in one pass: 1 MB of "<" (and of "<a") is read in linear time', () => {
    // Linear by construction (each character looked at a bounded number of times over a 64 KiB
    // prefix); the equality with the old regex on small inputs proves the reading is the same.
    for (const body of ['<p>Bad <b>gateway</b></p>', 'a < b and c > d', '<<<>', '<unclosed', 'x<y>z<', '']) {
      const oldWay = body
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      expect(bodySnippet(body)).toBe(oldWay.length > 200 ? `${oldWay.slice(0, 200)}...` : oldWay);
    }
    expect(bodySnippet('<'.repeat(1_000_000))).toBe(`${'<'.repeat(200)}...`);
    expect(bodySnippet('<a'.repeat(500_000))).toMatch(/^(<a){100}\.\.\.$/);
  });
});
