import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { openRunReport } from '../../src/pipeline/report-sinks.js';

import { ErrorCodeTally, formatErrorCodeCounts } from '../../src/report/report-writers.js';
import { errorMember, runErrorJson } from '../../src/report/error-document.js';
import {
  annotationsOf,
  escapeData,
  escapeProperty,
  GithubAnnotationsWriter,
  githubActionsEnabled,
} from '../../src/report/github-annotations.js';
import { JunitReportWriter, xmlAttribute, xmlText } from '../../src/report/junit-report-writer.js';
import { JsonReportWriter, RunReportBuilder } from '../../src/report/report-writers.js';
import { type ReportHeader } from '../../src/report/run-report.js';
import type { ReportItem } from '../../src/report/run-report.js';
import { StringSink } from '../support/string-sink.js';
import { openSpools } from '../support/open-files.js';
import {
  InputFileError,
  InterruptedError,
  StoreLockedError,
  TargetError,
  UsageError,
} from '../../src/system/errors.js';

const header: ReportHeader = { command: 'user sync', target: { kind: 'local', store: '/tmp/store' }, dryRun: false };

const items: ReportItem[] = [
  { source: { file: 'users.csv', line: 2 }, id: 'stu-1', status: 'ok', errors: [], action: 'created' },
  {
    source: { file: 'users.csv', line: 3 },
    id: 'stu-2',
    status: 'failed',
    errors: [
      { field: 'Email', code: 209, message: 'Email is not a valid address <x&y> "quoted"' },
      { field: 'Role', code: 240, message: 'Role is required\u0001 for a new user' },
    ],
  },
  {
    source: { file: 'users.csv', line: 4 },
    id: 'stu-3',
    status: 'partial',
    errors: [{ field: 'Hierarchies[0]', code: 1134, message: 'inactive' }],
  },
  { source: { file: 'users.csv', line: 5 }, id: null, status: 'skipped', errors: [] },
];

async function junit(list: readonly ReportItem[], head: ReportHeader = header): Promise<string> {
  const out = new StringSink();
  let clock = Date.parse('2026-11-21T10:00:00Z');
  const writer = new JunitReportWriter(out, head, { now: () => new Date((clock += 1500)) });
  const builder = new RunReportBuilder([writer]);
  for (const item of list) await builder.add({ item });
  await builder.finish();
  return out.text;
}

/** Parses with Python's expat (a strict XML 1.0 parser) and returns the structure CI tools read. */
function parseXml(xml: string): {
  suites: Record<string, string>;
  suite: Record<string, string>;
  cases: {
    attrs: Record<string, string>;
    kind: string | null;
    message: string | null;
    type: string | null;
    text: string | null;
  }[];
} {
  const script = `
import json, sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
suite = root.find('testsuite')
cases = []
for case in suite.findall('testcase'):
    child = next(iter(case), None)
    cases.append({'attrs': case.attrib, 'kind': child.tag if child is not None else None,
                  'message': child.get('message') if child is not None else None,
                  'type': child.get('type') if child is not None else None,
                  'text': child.text if child is not None else None})
print(json.dumps({'suites': root.attrib, 'suite': suite.attrib, 'cases': cases}))
`;
  const result = spawnSync('python3', ['-c', script], { input: xml, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`not well-formed XML: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('JUnit report', () => {
  it.skipIf(!hasPython)(
    'one testcase per record; failed and partial fail with their codes, skipped is skipped; counts on the suite',
    async () => {
      const doc = parseXml(await junit(items));
      expect(doc.suites).toMatchObject({
        name: 'examctl user sync',
        tests: '4',
        failures: '2',
        errors: '0',
        skipped: '1',
      });
      expect(doc.suite).toMatchObject({
        name: 'examctl user sync',
        tests: '4',
        failures: '2',
        skipped: '1',
        timestamp: '2026-11-21T10:00:01',
      });
      expect(Number(doc.suite.time)).toBeGreaterThan(0);
      expect(doc.cases.map((c) => [c.attrs.name, c.attrs.classname, c.attrs.file, c.attrs.line, c.kind])).toEqual([
        ['users.csv:2 [stu-1]', 'user sync', 'users.csv', '2', 'system-out'],
        ['users.csv:3 [stu-2]', 'user sync', 'users.csv', '3', 'failure'],
        ['users.csv:4 [stu-3]', 'user sync', 'users.csv', '4', 'failure'],
        ['users.csv:5', 'user sync', 'users.csv', '5', 'skipped'],
      ]);
      const failed = doc.cases[1]!;
      expect(failed.type).toBe('failed');
      expect(failed.message).toBe('failed: 209 240 Email: Email is not a valid address <x&y> "quoted" (+1 more)');
      expect(failed.text).toBe(
        'users.csv:3 Email 209 Email is not a valid address <x&y> "quoted"\nusers.csv:3 Role 240 Role is required\\u0001 for a new user',
      );
      expect(doc.cases[2]!.type).toBe('partial');
    },
  );

  it.skipIf(!hasPython)(
    'stays well-formed with control characters, lone surrogates and newlines in ids and messages; a dry run says so',
    async () => {
      const hostile: ReportItem = {
        source: { file: 'we"ird <file>.csv', line: 7 },
        id: 'a\u0000b\ud800c\u001b[31m',
        status: 'failed',
        errors: [{ field: 'F\tG', code: null, message: 'line one\r\nline two ]]> \ufffe' }],
      };
      const doc = parseXml(await junit([hostile], { ...header, dryRun: true }));
      expect(doc.suite.name).toBe('examctl user sync (dry run)');
      expect(doc.cases[0]!.attrs.name).toBe('we"ird <file>.csv:7 [a\\u0000b\\ud800c\\u001b[31m]');
      expect(doc.cases[0]!.message).toBe('failed: F\tG: line one\r\nline two ]]> \\ufffe');
    },
  );

  it('escapes the five markup characters and keeps paired surrogates (emoji) as they are', () => {
    expect(xmlText('a<b>&c')).toBe('a&lt;b&gt;&amp;c');
    expect(xmlAttribute('"x"\n\t')).toBe('&quot;x&quot;&#10;&#9;');
    expect(xmlText('ok 😀')).toBe('ok 😀');
  });

  it('an empty run is still a valid report with zero tests', async () => {
    const text = await junit([]);
    expect(text).toContain('<testsuites name="examctl user sync" tests="0" failures="0" errors="0" skipped="0"');
    expect(text.trimEnd().endsWith('</testsuites>')).toBe(true);
  });

  it('says the sync memory as the summary does: found, or none or incomplete with the sentence (another store too)', async () => {
    const memory = { kind: 'users', found: true, file: '/s/users.ndjson', remembered: 7, population: null } as const;
    const property = async (note: Partial<NonNullable<ReportHeader['syncMemory']>>) =>
      /<property name="syncMemory" value="([^"]*)"/.exec(
        await junit([], { ...header, syncMemory: { ...memory, populationFound: true, ...note } }),
      )?.[1];
    expect(await property({})).toBe('found: 7 remembered (/s/users.ndjson)');
    expect(await property({ populationFound: false })).toMatch(/^none: .*has no record/);
    // A memory of another store is not used, though it holds the population: never "found".
    expect(await property({ replaced: true })).toMatch(
      /^incomplete: the sync memory \/s\/users\.ndjson is of another store/,
    );
  });

  it.skipIf(process.platform !== 'linux')(
    'a report dropped unfinished (the run failed) lets go of the cases held aside past 8 MB: no spool left open for the collector',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'examctl-junit-'));
      const before = await openSpools();
      try {
        const deps = {
          cwd: dir,
          env: {},
          stdout: new StringSink(),
          stderr: new StringSink(),
        } as unknown as CommandDeps;
        const report = await openRunReport(header, { report: 'report.xml' }, deps);
        for (let n = 0; (await openSpools()) === before; n++) {
          for (let i = 0; i < 2000; i++) await report.builder.add({ item: { ...items[1]!, id: `stu-${n}-${i}` } });
        }
        await report.discard();
        expect(await openSpools()).toBe(before);
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('GitHub annotations', () => {
  it('escapes data (%, CR, LF) and properties (also : and ,) as the Actions toolkit does', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('dir:a,b%.csv')).toBe('dir%3Aa%2Cb%25.csv');
    expect(githubActionsEnabled({ GITHUB_ACTIONS: 'true' })).toBe(true);
    expect(githubActionsEnabled({ GITHUB_ACTIONS: 'false' })).toBe(false);
    expect(githubActionsEnabled({})).toBe(false);
  });

  it('an error per failed record, a warning per partial one, on the file relative to the workspace', () => {
    const options = { cwd: '/ws/data', workspace: '/ws' };
    expect(annotationsOf(items[0]!, options)).toEqual([]);
    expect(annotationsOf(items[3]!, options)).toEqual([]);
    expect(annotationsOf(items[1]!, options)).toEqual([
      '::error file=data/users.csv,line=3,title=209 240::[stu-2] Email: Email is not a valid address <x&y> "quoted" (code 209)%0ARole: Role is required\u0001 for a new user (code 240)\n',
    ]);
    expect(annotationsOf(items[2]!, options)[0]).toBe(
      '::warning file=data/users.csv,line=4,title=1134::[stu-3] Hierarchies[0]: inactive (code 1134)\n',
    );
  });

  it('a schedule with errors on several candidate lines gets one annotation per line; flags and prompts name no file', () => {
    const schedule: ReportItem = {
      source: { file: 'sittings.csv', line: 2 },
      id: 'S-1',
      status: 'failed',
      errors: [
        { field: 'Candidates[0].Email', code: 209, message: 'bad', line: 3 },
        { field: 'Schedule.AssessmentExtId', code: 1001, message: 'not found' },
      ],
    };
    const lines = annotationsOf(schedule, { cwd: '/elsewhere', workspace: '/ws' });
    expect(lines.map((line) => line.slice(0, line.indexOf('::', 2)))).toEqual([
      '::error file=sittings.csv,line=3,title=209',
      '::error file=sittings.csv,line=2,title=1001',
    ]);
    const prompted: ReportItem = {
      source: { file: '<prompt>', line: 1 },
      id: 'u-1',
      status: 'failed',
      errors: [{ field: '', code: null, message: 'x' }],
    };
    expect(annotationsOf(prompted, { cwd: '/ws' })).toEqual(['::error title=failed::[u-1] x\n']);
  });

  it('stops after the limit (50, the per-job bound of GitHub) and says how many more records failed', async () => {
    const out = new StringSink();
    const writer = new GithubAnnotationsWriter(out, { cwd: '/ws' });
    const earlier = Array.from(
      { length: 49 },
      (_, i): ReportItem => ({
        source: { file: 'users.csv', line: 100 + i },
        id: `e-${i}`,
        status: 'failed',
        errors: [{ field: 'Email', code: 209, message: 'x' }],
      }),
    );
    for (const item of [...earlier, ...items]) await writer.item({ item });
    await writer.finish();
    const lines = out.text.trimEnd().split('\n');
    expect(lines).toHaveLength(51);
    expect(lines[49]).toMatch(/^::error file=users\.csv,line=3,/);
    expect(lines[50]).toBe(
      '::notice title=examctl::1 more failed or partial record not annotated: the run report (--report) lists every one',
    );
  });
  it("a stopped run's error line is written as the finish's own write: a stderr that fails fails the finish", async () => {
    const closed = new Error('EPIPE');
    const written: string[] = [];
    const writer = new GithubAnnotationsWriter(
      {
        write: (text: string) => {
          written.push(text);
          return Promise.reject(closed);
        },
      },
      { cwd: '/ws' },
    );
    writer.stopped(new TargetError('x'));
    await expect(writer.finish()).rejects.toBe(closed);
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('E3000');
  });
});

describe('JSON error document', () => {
  it('names exit code, kind and message; input-file errors their file and line', () => {
    expect(runErrorJson(new InputFileError('users.csv', 12, 'unclosed quote'))).toEqual({
      exitCode: 2,
      code: 'E2100',
      kind: 'input-file',
      message: 'users.csv:12: unclosed quote',
      file: 'users.csv',
      line: 12,
    });
    expect(runErrorJson(new UsageError('missing --title'))).toEqual({
      exitCode: 2,
      code: 'E2000',
      kind: 'usage',
      message: 'missing --title',
    });
    expect(runErrorJson(new StoreLockedError('locked')).kind).toBe('store-locked');
    expect(runErrorJson(new InterruptedError('stop')).exitCode).toBe(130);
    expect(runErrorJson(new Error('boom'))).toEqual({
      exitCode: 70,
      code: 'E7001',
      kind: 'internal',
      message: 'internal error: boom',
    });
  });

  it('a 403 says refused (when the error carries the status), other target failures say target', () => {
    const refused = Object.assign(new TargetError('the service refused the token'), { status: 403 });
    expect(runErrorJson(refused)).toEqual({
      exitCode: 3,
      code: 'E3000',
      kind: 'refused',
      message: 'the service refused the token',
      status: 403,
    });
    expect(runErrorJson(new TargetError('ECONNREFUSED')).kind).toBe('target');
  });

  it('a report stopped after records were reported is one document, its error between the items and the summary; a run that reported nothing, the error alone', async () => {
    const out = new StringSink();
    const builder = new RunReportBuilder([new JsonReportWriter(out, header)]);
    await builder.add({ item: { ...items[0]! } });
    builder.stopped(new TargetError('x'));
    await builder.finish();
    const doc = JSON.parse(out.text) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['command', 'target', 'dryRun', 'items', 'error', 'summary']);
    expect(doc['error']).toEqual(runErrorJson(new TargetError('x')));
    expect(doc['summary']).toEqual({
      actions: { create: 1 },
      total: 1,
      ok: 1,
      partial: 0,
      failed: 0,
      skipped: 0,
      created: 1,
      updated: 0,
    });
    expect(JSON.parse(`{${errorMember(new UsageError('u'))}}`)).toEqual({
      error: { exitCode: 2, code: 'E2000', kind: 'usage', message: 'u' },
    });
  });
});

describe('error counts by code', () => {
  it('counts every problem by code, most frequent first, with an example message', () => {
    const tally = new ErrorCodeTally();
    for (let i = 0; i < 12; i++) tally.add({ field: 'Email', code: 209, message: 'Email is not a valid address' });
    for (let i = 0; i < 1200; i++) tally.add({ field: 'Role', code: 240, message: 'Role is required' });
    tally.add({ field: '', code: null, message: 'Scheduler not set' });
    for (const problem of items[2]!.errors) tally.add(problem);
    expect(formatErrorCodeCounts(tally.entries())).toEqual([
      '  240 x 1,200  Role is required',
      '  209 x 12     Email is not a valid address',
      '  1134 x 1     inactive',
      '  - x 1        Scheduler not set',
    ]);
  });

  it('one cause is one entry even when its messages quote different values (numbers, sizes, quoted text)', () => {
    const tally = new ErrorCodeTally();
    tally.add({
      field: '',
      code: null,
      message: '127.0.0.1:4001: POST /user: the service answered 200 but its answer was too large to read (60 MiB)',
    });
    tally.add({
      field: '',
      code: null,
      message: '127.0.0.1:4001: POST /user: the service answered 201 but its answer was too large to read (64 MiB)',
    });
    tally.add({ field: '', code: null, message: 'no hierarchy "north"' });
    tally.add({ field: '', code: null, message: 'no hierarchy "south"' });
    expect(tally.entries().map((entry) => [entry.count, entry.message])).toEqual([
      [2, '127.0.0.1:4001: POST /user: the service answered 200 but its answer was too large to read (60 MiB)'],
      [2, 'no hierarchy "north"'],
    ]);
    // The line says its example is one of several: three unknown words are not one word to fix.
    tally.add({ field: '', code: null, message: 'no hierarchy "north"' });
    expect(formatErrorCodeCounts(tally.entries())).toEqual([
      '  - x 3  no hierarchy "north" (the first of 2 different messages: the report has each)',
      '  - x 2  127.0.0.1:4001: POST /user: the service answered 200 but its answer was too large to read (60 MiB) (the first of 2 different messages: the report has each)',
    ]);
  });

  it('keeps memory bounded for unnumbered problems with ever-new messages', () => {
    const tally = new ErrorCodeTally();
    // Messages that differ in words, not only in the values they quote.
    const word = (i: number) =>
      [i % 10, Math.floor(i / 10) % 10, Math.floor(i / 100)].map((d) => 'abcdefghij'[d]).join('');
    for (let i = 0; i < 500; i++) tally.add({ field: '', code: null, message: `problem ${word(i)}` });
    const entries = tally.entries();
    expect(entries).toHaveLength(51);
    expect(entries[0]).toEqual({ code: null, count: 450, message: 'other problems without a code' });
  });
});
