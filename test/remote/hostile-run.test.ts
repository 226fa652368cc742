import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { json, largeBody, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { lineWith } from '../support/facts.js';

/**
 * Whole remote runs against hostile answers (issues 22 and 26): what reaches every sink (stderr,
 * the --json document, the --report file, the run journal) and how the run ends.
 */
const TOKEN = 'run-secret-token-ABCDEFGHIJ';
const PASSWORD = 'Hunter2-correct-horse';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function allFiles(dir: string): Promise<string> {
  let text = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return text;
}

async function sync(dir: string, url: string, extra: string[] = [], token = TOKEN) {
  const file = join(dir, 'users.json');
  const users = Array.from({ length: 3 }, (_, i) => ({
    ExternalId: `u-${i}`,
    FirstName: 'Ann',
    LastName: 'Lee',
    Email: `u${i}@example.test`,
    Role: 'Candidate',
    Password: PASSWORD,
  }));
  await writeFile(file, JSON.stringify(users));
  const io = testDeps(dir, {}, { EXAMCTL_TOKEN: token, EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(
    [
      '--target',
      'remote',
      '--base-url',
      url,
      '--yes',
      '--json',
      '--report',
      join(dir, 'report.json'),
      ...extra,
      'user',
      'sync',
      '--file',
      file,
    ],
    io.deps,
  );
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('hostile answers through a whole run', () => {
  it("an envelope echoing the token and the record's password: neither reaches stderr, --json, --report or the journal", async () => {
    server = await startHostileServer((request, res) => {
      json(res, 400, {
        Content: null,
        Success: false,
        Errors: [{ Code: 213, Message: `bad token ${TOKEN}; Password '${PASSWORD}' is too weak` }],
      });
      void request;
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url);
      expect(code).toBe(1);
      const everything = `${stdout}\n${stderr}\n${await allFiles(dir)}`;
      expect(everything).toContain('[redacted]');
      expect(everything).not.toContain(TOKEN.slice(0, 8));
      // The users file holds the password; every other file must not.
      const sinks = everything.split(JSON.stringify(PASSWORD)).join('');
      expect(sinks).not.toContain(PASSWORD.slice(0, 8));
    });
  });

  it('the token and password re-encoded (base64 of "Bearer <token>", base64url in a message, percent-encoded): none reaches stderr, --json, --report or the journal', async () => {
    const forms = [
      Buffer.from(`Bearer ${TOKEN}`).toString('base64'),
      Buffer.from(TOKEN).toString('base64url'),
      encodeURIComponent(`${TOKEN}/`),
      Buffer.from(`user:${PASSWORD}`).toString('base64'),
    ];
    server = await startHostileServer((_request, res) =>
      json(res, 400, {
        Content: null,
        Success: false,
        Errors: forms.map((form) => ({ Code: 213, Message: `bad credentials ${form}` })),
      }),
    );
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url);
      expect(code).toBe(1);
      const everything = `${stdout}\n${stderr}\n${await allFiles(dir)}`;
      expect(everything).toContain('[redacted]');
      for (const form of forms) expect(everything).not.toContain(form.slice(12, 20));
      // The whole encoding goes, its last quantum too (`[redacted]NDU=` decoded to the secret's tail).
      const messages = (JSON.parse(stdout) as { items: { errors: { message: string }[] }[] }).items.flatMap((item) =>
        item.errors.map((error) => error.message),
      );
      // Per record: the three base64 forms wholly redacted, the percent form's own `/` (%2F) kept.
      expect(messages.filter((message) => message === 'bad credentials [redacted]')).toHaveLength(9);
      expect(messages.filter((message) => message === 'bad credentials [redacted]%2F')).toHaveLength(3);
      for (const form of forms.slice(0, 2)) expect(everything).not.toContain(`[redacted]${form.slice(-3)}`);
    });
  });

  it('the token echoed HTML-escaped (decimal, hex, named, partly, twice): no decodable form reaches stdout, stderr, --debug, --report or the journal', async () => {
    const token = 'Tk+S3cr3t/zz=9Qw';
    const each = (text: string, format: (code: number) => string): string =>
      [...text].map((char) => format(char.charCodeAt(0))).join('');
    const named: Record<string, string> = { '+': '&plus;', '/': '&sol;', '=': '&equals;', ' ': '&nbsp;' };
    // The server echoes what it was sent (`EAPI <token>`), escaped five ways.
    server = await startHostileServer((request, res) => {
      const sent = String(request.headers.authorization);
      const escaped = [
        each(sent, (code) => `&#${code};`),
        each(sent, (code) => `&#x${code.toString(16)};`),
        sent.replace(/[+/= ]/g, (char) => named[char]!),
        sent.replace(/[+/=]/g, (char) => `&#${char.charCodeAt(0)};`),
        sent.replace(/[+/=]/g, (char) => `&amp;#${char.charCodeAt(0)};`),
      ];
      json(res, 400, {
        Content: null,
        Success: false,
        Errors: escaped.map((form) => ({ Code: 213, Message: `bad credentials &lt;${form}&gt;` })),
      });
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url, ['--debug'], token);
      expect(code).toBe(1);
      expect(server!.requests[0]!.headers.authorization).toBe(`EAPI ${token}`);
      const everything = `${stdout}\n${stderr}\n${await allFiles(dir)}`;
      expect(stderr).toContain('bad credentials &lt;EAPI [redacted]&gt;');
      // Every reference decoded, twice over: not one 8-character piece of the token is left.
      let decoded = everything;
      for (let round = 0; round < 2; round += 1) {
        decoded = decoded
          .replace(/&#x([0-9a-f]+);/gi, (_all, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
          .replace(/&#([0-9]+);/g, (_all, decimal: string) => String.fromCodePoint(Number(decimal)))
          .replace(
            /&(plus|sol|equals|nbsp|amp);/g,
            (_all, name: string) => ({ plus: '+', sol: '/', equals: '=', nbsp: ' ', amp: '&' })[name]!,
          );
      }
      for (let at = 0; at + 8 <= token.length; at += 1)
        expect(decoded.toLowerCase()).not.toContain(token.slice(at, at + 8).toLowerCase());
      const messages = (JSON.parse(stdout) as { items: { errors: { message: string }[] }[] }).items.flatMap((item) =>
        item.errors.map((error) => error.message),
      );
      expect(messages).toHaveLength(15);
      for (const message of messages)
        expect(message).toMatch(
          /^bad credentials &lt;(EAPI |&#69;&#65;&#80;&#73;&#32;|&#x45;&#x41;&#x50;&#x49;&#x20;|EAPI&nbsp;)?\[redacted\]&gt;$/,
        );
    });
  });

  it('the token and password echoed as JSON \\u escapes (every character, some, upper-case hex) in a 400 envelope and a 500 text: no sink holds them', async () => {
    const escape = (text: string, which: (at: number) => boolean = () => true): string =>
      [...text]
        .map((char, at) => (which(at) ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char))
        .join('');
    const forms = [
      escape(TOKEN),
      escape(PASSWORD),
      escape(PASSWORD, (at) => at % 2 === 0),
      escape(TOKEN).toUpperCase().replace(/\\U/g, '\\u'),
    ];
    const undo = (text: string): string =>
      text.replace(/\\+u([0-9a-f]{4})/gi, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    for (const status of [400, 500]) {
      server = await startHostileServer((_request, res) => {
        if (status === 400)
          return json(res, 400, {
            Content: null,
            Success: false,
            Errors: forms.map((form) => ({ Code: 213, Message: `bad credentials ${form}` })),
          });
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`refused ${forms[1]} for ${forms[0]}`);
      });
      await withTempDir(async (dir) => {
        const { code, stdout, stderr } = await sync(dir, server!.url);
        expect(code).toBe(status === 400 ? 1 : 3);
        const files = (await allFiles(dir)).replace(await readFile(join(dir, 'users.json'), 'utf8'), '');
        expect(files).toContain('[redacted]');
        expect(stderr).toContain(status === 400 ? 'bad credentials [redacted]' : 'refused [redacted] for [redacted]');
        const shown = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
        await runCli(['runs', 'show', 'last', '--json'], shown.deps);
        expect(shown.stdout.text).toContain('[redacted]');
        // Decoded, escaped twice (a string in --json or the journal) too: no 8-character piece is left.
        const decoded = undo(
          undo(`${stdout}\n${stderr}\n${files}\n${shown.stdout.text}\n${shown.stderr.text}`),
        ).toLowerCase();
        for (const secret of [TOKEN, PASSWORD])
          for (let at = 0; at + 8 <= secret.length; at += 1)
            expect(decoded).not.toContain(secret.slice(at, at + 8).toLowerCase());
      });
      await server.close();
    }
  });

  it('a 500 page of 176 characters then the token: no part of it survives the cut', async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(`<html><body>${'e'.repeat(176)}${TOKEN}</body></html>`);
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url);
      expect(code).toBe(3);
      const everything = `${stdout}\n${stderr}\n${await allFiles(dir)}`;
      expect(everything).not.toContain(TOKEN.slice(0, 8));
    });
  });

  it('a redirect: exit 3 at the first answer naming the Location; no record is marked failed', async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(301, { location: 'https://127.0.0.1/api/v1/integrations/user' });
      res.end();
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(3);
      expect(stderr).toContain('set --base-url to https://127.0.0.1');
      // The code said once.
      expectCoded(stderr, 'E3002', 'POST /user', 'HTTP 301', 'https://127.0.0.1/api/v1/integrations/user');
      const report = JSON.parse(stdout) as { summary: { failed: number } };
      expect(report.summary.failed).toBe(0);
      expect(server!.requests).toHaveLength(1);
    });
  });

  it('{"Success":"false"} with 200 is not ok', async () => {
    server = await startHostileServer((_request, res) =>
      json(res, 200, '{"Success":"false","Content":null,"Errors":null}'),
    );
    await withTempDir(async (dir) => {
      const { code, stdout } = await sync(dir, server!.url);
      expect(code).toBe(1);
      expect((JSON.parse(stdout) as { summary: { ok: number } }).summary.ok).toBe(0);
    });
  });

  it('a token outside visible ASCII is exit 2 before anything is sent, the token not echoed', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, { Content: null, Success: true }));
    await withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'tok€n-secret-part', EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      await writeFile(join(dir, 'u.json'), '[]');
      const code = await runCli(
        ['--target', 'remote', '--base-url', server!.url, '--yes', 'user', 'sync', '--file', join(dir, 'u.json')],
        io.deps,
      );
      expect(code).toBe(2);
      expect(io.stderr.text).toContain('outside visible ASCII');
      expect(io.stderr.text).not.toContain('secret-part');
      expect(server!.requests).toHaveLength(0);
    });
  });
});

describe('a 2xx too large to keep (W1)', () => {
  it('60 MiB answering the first POST of each user: each sent once, skipped "may have been applied", the run goes on, exit 3', async () => {
    const seen = new Set<string>();
    server = await startHostileServer((request, res) => {
      const id = (JSON.parse(request.body) as { ExternalId: string }).ExternalId;
      if (!seen.has(id)) {
        seen.add(id);
        largeBody(res, 200, 60 * 1024 * 1024);
      } else json(res, 400, { Content: null, Success: false, Errors: [{ Code: 2001, Message: 'Duplicate' }] });
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url, ['--concurrency', '1']);
      // A target whose answers cannot be read is a target failure (exit 3), as a 5xx after retries.
      expect(code).toBe(3);
      expect(server!.requests).toHaveLength(3);
      const report = JSON.parse(stdout) as {
        summary: { retried: number };
        items: { status: string; errors: { message: string }[] }[];
      };
      expect(report.summary.retried).toBe(0);
      expect(report.items.map((item) => item.status)).toEqual(['skipped', 'skipped', 'skipped']);
      for (const item of report.items) {
        expect(item.errors[0]!.message).toContain(
          'the service answered 200 but its answer was too large to read (60 MiB): not retried',
        );
        // Said once: the item's words add "it may have been applied" to the client's.
        expect(item.errors[0]!.message.split('may have been applied')).toHaveLength(2);
      }
      expect(stderr).not.toContain('Duplicate');
      expect(stderr).not.toMatch(/^retried /m);
      // runs show says it as of any answer lost: not done, it may have been applied.
      const runId = /run (\S+) \(examctl runs show/.exec(stderr)?.[1];
      expect(runId).toBeDefined();
      const show = testDeps(dir, {}, { EXAMCTL_TOKEN: TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      await runCli(['runs', 'show', runId!], show.deps);
      expect(show.stdout.text + show.stderr.text).toMatch(/ 9026 /);
      expect(show.stdout.text + show.stderr.text).not.toMatch(/may have been applied[^\n]*may have been applied/);
      expect(show.stdout.text + show.stderr.text).toContain('(60 MiB)');
    });
  });
});

describe('retries counted', () => {
  it('the summary and the JSON report say how many requests were retried, and why', async () => {
    let calls = 0;
    server = await startHostileServer((_request, res) => {
      calls += 1;
      // Two 503s then a timeout-free success for the first record; the others succeed at once.
      if (calls <= 2) json(res, 503, 'busy', { 'retry-after': '0' });
      else json(res, 200, { Content: { User: {}, GroupErrors: [] }, Success: true, Errors: null });
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as { summary: { retried: number; retriedByCause: Record<string, number> } };
      expect(report.summary.retried).toBe(2);
      expect(report.summary.retriedByCause).toEqual({ 503: 2 });
      expect(lineWith(stderr, 'retried 2 requests', '503: 2')).toBeTruthy();
    });
  });
});

describe('interrupts are bounded', () => {
  it('Ctrl-C while the server never answers: after the grace the request is abandoned, exit 130, and runs show says its answer was lost', async () => {
    const interrupt = new AbortController();
    // The marker: the first request reached the server. It is never answered.
    server = await startHostileServer(() => interrupt.abort());
    await withTempDir(async (dir) => {
      const file = join(dir, 'users.json');
      await writeFile(
        file,
        JSON.stringify([
          { ExternalId: 'u-0', FirstName: 'Ann', LastName: 'Lee', Email: 'u0@example.test', Role: 'Candidate' },
        ]),
      );
      const env = { EXAMCTL_TOKEN: TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_STOP_GRACE_MS: '50' };
      const io = testDeps(dir, { signal: interrupt.signal }, env);
      const code = await runCli(
        [
          '--target',
          'remote',
          '--base-url',
          server!.url,
          '--yes',
          '--concurrency',
          '1',
          'user',
          'sync',
          '--file',
          file,
        ],
        io.deps,
      );
      expect(code).toBe(130);
      const runId = /run (\S+) \(examctl runs show/.exec(io.stderr.text)?.[1];
      expect(runId).toBeDefined();
      const show = testDeps(dir, {}, env);
      await runCli(['runs', 'show', runId!], show.deps);
      expect(show.stdout.text + show.stderr.text).toContain(
        'when the run stopped, no answer recorded: it may have been applied',
      );
    });
  });
});

/** Three users in a JSON file, and the run's deps with `signal` as its Ctrl-C (a 50 ms grace after it). */
async function threeUsers(dir: string, signal: AbortSignal) {
  const file = join(dir, 'users.json');
  const users = [0, 1, 2].map((i) => ({
    ExternalId: `u-${i}`,
    FirstName: 'Ann',
    LastName: 'Lee',
    Email: `u${i}@example.test`,
    Role: 'Candidate',
  }));
  await writeFile(file, JSON.stringify(users));
  const env = { EXAMCTL_TOKEN: TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_STOP_GRACE_MS: '50' };
  return { file, io: testDeps(dir, { signal }, env) };
}

/** The three users of `threeUsers` synced to the test server with --json, `concurrency` requests at a time. */
function syncOneBy(io: ReturnType<typeof testDeps>, file: string, concurrency: string, extra: string[] = []) {
  const flags = ['--target', 'remote', '--base-url', server!.url, '--yes', '--json', ...extra];
  return runCli([...flags, '--concurrency', concurrency, 'user', 'sync', '--file', file], io.deps);
}

/** The answer to u-0, the first request. */
const FIRST_USER = { Content: { User: { ExternalId: 'u-0' }, GroupErrors: [] }, Success: true, Errors: null };

describe('interrupted with requests in flight (QA D5): the run says what runs show says', () => {
  it('two requests received, never answered: --json and stderr say they may have been applied, never "nothing was sent"', async () => {
    const interrupt = new AbortController();
    let received = 0;
    // The marker: both requests after the first reached the server (two in flight), which never answers them.
    server = await startHostileServer((_request, res) => {
      received += 1;
      if (received === 1) json(res, 200, FIRST_USER);
      if (received === 3) interrupt.abort();
    });
    await withTempDir(async (dir) => {
      const { file, io } = await threeUsers(dir, interrupt.signal);
      const code = await syncOneBy(io, file, '2');
      expect(code).toBe(130);
      const doc = JSON.parse(io.stdout.text) as {
        error?: { code: string; message: string };
        items: Array<{ status: string; errors: Array<{ message: string }> }>;
      };
      expect(io.stderr.text + io.stdout.text).not.toContain('nothing was sent');
      expect(doc.error?.code).toBe('E1301');
      expect(doc.error?.message).toContain(
        '2 requests sent got no whole answer before the grace ended, so they may have been applied',
      );
      expect(doc.items).toHaveLength(3);
      expect(doc.items[0]?.status).toBe('ok');
      for (const item of doc.items.slice(1)) {
        expect(item.status).toBe('skipped');
        expect(item.errors[0]?.message).toMatch(
          /^sent, but its answer was lost when the run was interrupted \(no whole answer within the 50 ms grace after the interrupt\): it may have been applied/,
        );
      }
    });
  });
});

describe('interrupted while a 2xx answer trickles (trial31 F02): exit 130, the request said sent and maybe applied', () => {
  for (const users of [1, 3]) {
    it(`${users} row(s), concurrency 1: never "nothing was sent", never a target failure`, async () => {
      const interrupt = new AbortController();
      // The marker: the first request reached the server, which starts a 200 it never finishes.
      server = await startHostileServer((_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
        res.write('{');
        interrupt.abort();
      });
      await withTempDir(async (dir) => {
        const { file, io } = await threeUsers(dir, interrupt.signal);
        if (users === 1)
          await writeFile(
            file,
            JSON.stringify([
              { ExternalId: 'u-0', FirstName: 'Ann', LastName: 'Lee', Email: 'u0@example.test', Role: 'Candidate' },
            ]),
          );
        const code = await syncOneBy(io, file, '1');
        expect(code).toBe(130);
        const doc = JSON.parse(io.stdout.text) as { error?: { message: string } };
        expect(io.stderr.text + io.stdout.text).not.toContain('nothing was sent');
        expect(doc.error?.message).toContain(
          '1 request sent got no whole answer before the grace ended, so it may have been applied',
        );
        // trial34 F07: the item says the interrupt lost its answer, not that the service cut it short.
        const lost =
          /^sent, but its answer was lost when the run was interrupted \(no whole answer within the 50 ms grace after the interrupt\): it may have been applied/;
        expect((doc as { items: Array<{ errors: Array<{ message: string }> }> }).items[0]?.errors[0]?.message).toMatch(
          lost,
        );
      });
    });
  }
});

describe('interrupted while waiting to retry (QA): never "nothing was sent" once requests were answered', () => {
  it('a 503 with Retry-After received, Ctrl-C during the wait: the run says it was answered "try again later", not that nothing was sent', async () => {
    const interrupt = new AbortController();
    server = await startHostileServer((_request, res) => {
      res.writeHead(503, { 'retry-after': '60', 'content-type': 'application/json' });
      res.end('{"Content":null,"Success":false,"Errors":[{"Message":"busy"}]}');
    });
    await withTempDir(async (dir) => {
      const { file, io } = await threeUsers(dir, interrupt.signal);
      // The marker: --debug says each retry wait before it starts; the one request in flight was answered 503 by then.
      let waits = 0;
      const write = io.deps.stderr.write.bind(io.deps.stderr);
      io.deps.stderr.write = (text: string) => {
        waits += (text.match(/retrying in/g) ?? []).length;
        if (waits >= 1 && !interrupt.signal.aborted) interrupt.abort();
        return write(text);
      };
      const code = await syncOneBy(io, file, '1', ['--debug']);
      expect(code).toBe(130);
      expect(server!.requests).toHaveLength(1);
      const doc = JSON.parse(io.stdout.text) as { error?: { message: string } };
      expect(io.stderr.text + io.stdout.text).not.toContain('nothing was sent');
      expect(doc.error?.message).toContain(
        'interrupted while waiting to retry: the service answered 1 request with "try again later" (not done)',
      );
    });
  });
});

describe('the service gone mid-run (a server killed mid-night): the stop says what was answered and the way back', () => {
  it('u-0 answered, then the port refuses: exit 3, E3002, the stop names 1 answered request and runs resume, in --json too', async () => {
    let received = 0;
    server = await startHostileServer((_request, res) => {
      received += 1;
      // The marker: the first user's answer is written; the server then goes away (a connection not kept alive, so
      // the next request meets the closed port: refused, never received).
      res.on('finish', () => void server?.close());
      json(res, 200, FIRST_USER, { connection: 'close' });
    });
    await withTempDir(async (dir) => {
      const { file, io } = await threeUsers(dir, new AbortController().signal);
      const code = await syncOneBy(io, file, '1');
      expect(code).toBe(3);
      expect(received).toBe(1);
      const doc = JSON.parse(io.stdout.text) as {
        run: string;
        error?: { code: string; message: string };
        items: Array<{ status: string }>;
      };
      expect(doc.items.map((item) => item.status)).toEqual(['ok', 'skipped', 'skipped']);
      expect(doc.error?.code).toBe('E3002');
      expect(doc.error?.message).toContain('the run stopped there, after 1 request the service answered');
      expect(doc.error?.message).toContain(`examctl runs resume ${doc.run} sends the rest`);
      expect(lineWith(io.stderr.text, 'examctl: E3002:')).toContain(`examctl runs resume ${doc.run}`);
      // The code's explanation gives the same way back, and no longer says the run sent nothing.
      const explain = testDeps(dir);
      expect(await runCli(['explain', 'E3002'], explain.deps)).toBe(0);
      expect(explain.stdout.text).toContain('examctl runs resume <id>');
      expect(explain.stdout.text).not.toContain('Nothing was sent');
    });
  });
});

describe('connection failures through a whole run', () => {
  it('a self-signed server: exit 3 at once, the NODE_EXTRA_CA_CERTS advice, nothing was sent, no run left to resume', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, { Content: null, Success: true }), {
      selfSigned: true,
    });
    await withTempDir(async (dir) => {
      const { code, stderr } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(3);
      expect(stderr).toContain('NODE_EXTRA_CA_CERTS=<ca.pem>');
      expect(stderr).toContain('nothing was sent');
      expect(server!.connections).toBe(1);
      // Met by the run's first request, the question for a served store's head, before its journal began: no run to
      // resume.
      expect(stderr).not.toMatch(/run \S+ \(examctl runs show/);
      const show = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(await runCli(['--json', 'runs', 'list'], show.deps)).toBe(0);
      expect(JSON.parse(show.stdout.text)).toMatchObject({ runs: [] });
    });
  });
});

describe('answers too large to keep', () => {
  it('an answer with 30,000 GroupErrors is capped before the journal, the report and --json (100 and "… and N more")', async () => {
    // 30,000 is enough to tell capped from not (about 2 MB per item per sink uncapped) and cheap on a loaded machine.
    const groupErrors = Array.from({ length: 30_000 }, (_, i) => ({
      ExternalId: `H-${i}`,
      Code: 131,
      Error: `Hierarchy not found: H-${i}`,
    }));
    const body = JSON.stringify({ Content: { User: {}, GroupErrors: groupErrors }, Success: true, Errors: null });
    server = await startHostileServer((_request, res) => json(res, 200, body));
    await withTempDir(async (dir) => {
      const { code, stdout } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(1);
      const report = JSON.parse(stdout) as { items: Array<{ status: string; errors: Array<{ message: string }> }> };
      expect(report.items[0]?.status).toBe('partial');
      expect(report.items[0]?.errors).toHaveLength(101);
      expect(report.items[0]?.errors.at(-1)?.message).toBe('… and 29900 more');
      // Each sink holds about 100 messages per item, not 30,000: tens of KB, not the 2 MB per item per sink uncapped.
      const written = await allFiles(dir);
      expect(written.length).toBeLessThan(500_000);
    });
  });
});

describe('answers that would crash a reader', () => {
  it('Errors nested 2,000 deep: the records fail (exit 1), never an internal error', async () => {
    let nested: unknown = { Code: 1, Message: 'deep' };
    for (let i = 0; i < 2000; i += 1) nested = [nested];
    const body = JSON.stringify({ Content: null, Success: false, Errors: nested });
    server = await startHostileServer((_request, res) => json(res, 400, body));
    await withTempDir(async (dir) => {
      const { code, stdout } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(1);
      expect((JSON.parse(stdout) as { summary: { failed: number } }).summary.failed).toBe(3);
    });
  });
});
