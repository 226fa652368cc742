import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { capProblems, ERROR_LIMITS, errorsOf } from '../../src/api/envelope-errors.js';
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

  it('300,000 messages become 100 and "… and 299900 more"; a message is cut at 2 KiB, saying so', () => {
    const errors = Array.from({ length: 300_000 }, (_, i) => ({ Code: 209, Message: `bad ${i}` }));
    const problems = errorsOf({ Errors: errors });
    expect(problems).toHaveLength(ERROR_LIMITS.problems + 1);
    expect(problems[0]?.message).toBe('bad 0');
    expect(problems.at(-1)?.message).toBe('… and 299900 more');
    const long = errorsOf({ Errors: ['x'.repeat(1_000_000)] });
    expect(long[0]?.message).toMatch(/^x{2048}… \(cut by examctl: 1,000,000 characters\)$/);
  });

  it('100 messages of 50,000 characters keep a few KiB in all, each cut said, the rest counted (issue 81)', () => {
    // A hostile server's error answers grew the journal about 5 MB per failed item.
    const errors = Array.from({ length: 100 }, (_, i) => ({ Code: 209, Message: `${i} ${'y'.repeat(50_000)}` }));
    for (const problems of [
      errorsOf({ Errors: errors }),
      capProblems([...errorsOf({ Errors: errors }), ...errorsOf({ Errors: errors })]),
    ]) {
      const chars = problems.reduce((sum, problem) => sum + problem.message.length, 0);
      expect(chars).toBeLessThanOrEqual(ERROR_LIMITS.totalChars + ERROR_LIMITS.messageChars + 100);
      expect(problems[0]?.message).toContain('… (cut by examctl: 50,002 characters)');
      expect(problems.at(-1)?.message).toMatch(/^… and (96|196) more$/);
    }
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

const TOKEN = 'bounded-answers-token-0123456789';

describe("a hostile server's error answers in the journal, the report and --json (issue 81)", () => {
  let server: HostileServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('100 messages of 50,000 characters a failed item: a few KiB each kept, said as cut', async () => {
    const errors = Array.from({ length: 100 }, (_, i) => ({ Code: 209, Message: `${i} ${'z'.repeat(50_000)}` }));
    server = await startHostileServer((_request, res) => json(res, 400, { Success: false, Errors: errors }));
    await withTempDir(async (dir) => {
      const users = `${readFileSync(join(__dirname, '../../fixtures/users.csv'), 'utf8').split('\n').slice(0, 4).join('\n')}\n`;
      await writeFile(join(dir, 'users.csv'), users);
      const items = users.trim().split('\n').length - 1;
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: TOKEN });
      const argv = ['--target', 'remote', '--base-url', server!.url, '--yes', '--json'];
      const code = await runCli([...argv, 'user', 'sync', '--file', 'users.csv', '--report', 'r.csv'], io.deps);
      expect(code).not.toBe(0);
      const journal = (await readdir(join(dir, 'runs'), { recursive: true })).map((name) => join(dir, 'runs', name));
      let journalBytes = 0;
      for (const path of journal) if ((await stat(path)).isFile()) journalBytes += (await stat(path)).size;
      // Before: about 5 MB an item. Now at most 100 KiB an item in each.
      for (const bytes of [journalBytes, (await stat(join(dir, 'r.csv'))).size, io.stdout.text.length])
        expect(bytes).toBeLessThan(items * 100 * 1024);
      expect(io.stdout.text).toContain('(cut by examctl: 50,002 characters)');
      expect(await readFile(join(dir, 'r.csv'), 'utf8')).toContain('(cut by examctl: 50,002 characters)');
    });
  });
});
