import { describe, it, expect } from 'vitest';
import { itemLine } from '../support/coded-message.js';
import { summaryOf } from '../support/facts.js';
import { csvCell, csvLine } from '../../src/formats/csv-cell.js';
import { neutraliseCell } from '../../src/formats/report-csv-contract.js';
import {
  CsvReportWriter,
  HumanSummaryWriter,
  JsonReportWriter,
  RunReportBuilder,
  exitCodeFor,
  missedRunSentence,
  noMemorySentence,
} from '../../src/report/report-writers.js';
import { type ReportEntry, type ReportHeader, type ReportItem } from '../../src/report/run-report.js';
import { StringSink } from '../support/string-sink.js';

const header: ReportHeader = { command: 'user sync', target: { kind: 'local', store: '/tmp/s' }, dryRun: false };

function entry(
  line: number,
  status: ReportEntry['item']['status'],
  errors: ReportEntry['item']['errors'] = [],
  cells?: string[],
): ReportEntry {
  const item = { source: { file: 'users.csv', line }, id: `u-${line}`, status, errors };
  return cells ? { item, rows: [{ line, header: ['ExternalId', 'Email'], cells }] } : { item };
}

describe('csv cells', () => {
  it('neutralises every formula lead character', () => {
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) expect(neutraliseCell(`${lead}1+1`)).toBe(`'${lead}1+1`);
    expect(neutraliseCell('plain')).toBe('plain');
  });

  it('gives a cell that already starts with quotes before a formula character one more quote (the reader drops one)', () => {
    expect(neutraliseCell("'=x")).toBe("''=x");
    expect(neutraliseCell("''+1")).toBe("'''+1");
    expect(neutraliseCell("'plain")).toBe("'plain");
  });

  it('quotes delimiters, quotes and newlines', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvLine(['a', '-1'])).toBe("a,'-1\r\n");
  });
});

describe('JSON report', () => {
  it('is one parseable document with items in order and the summary', async () => {
    const out = new StringSink();
    const builder = new RunReportBuilder([new JsonReportWriter(out, header)]);
    await builder.add(entry(2, 'ok'));
    await builder.add(entry(3, 'failed', [{ field: 'Email', code: 209, message: 'bad' }]));
    await builder.finish();
    const doc = JSON.parse(out.text);
    expect(doc.command).toBe('user sync');
    expect(doc.target).toEqual({ kind: 'local', store: '/tmp/s' });
    expect(doc.items.map((i: { id: string }) => i.id)).toEqual(['u-2', 'u-3']);
    expect(doc.items[1].errors[0]).toEqual({ field: 'Email', code: 209, message: 'bad' });
    expect(doc.summary).toEqual({ actions: { send: 1, fails: 1 }, total: 2, ok: 1, partial: 0, failed: 1, skipped: 0 });
    expect(exitCodeFor(builder.summary)).toBe(1);
  });

  it('is valid with no items', async () => {
    const out = new StringSink();
    const builder = new RunReportBuilder([new JsonReportWriter(out, header)]);
    await builder.finish();
    expect(JSON.parse(out.text).items).toEqual([]);
    expect(exitCodeFor(builder.summary)).toBe(0);
  });
});

describe('CSV report', () => {
  it("gives CSV rows back with status columns, replacing old report columns; a row keeps the run a fed-back report names, else the run's", async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out, false, '20261102T010000.000Z-bbbb');
    const old = { header: ['ExternalId', 'status', 'Email', 'error_codes', 'error_messages', 'run'] };
    const failed: ReportItem = {
      source: { file: 'r.csv', line: 2 },
      id: 'u1',
      status: 'failed',
      errors: [{ field: 'Email', code: 209, message: 'bad address' }],
    };
    await writer.item({
      item: failed,
      rows: [
        { line: 2, header: old.header, cells: ['u1', 'failed', '=cmd', '209', 'old', '20261101T010000.000Z-aaaa'] },
      ],
    });
    await writer.item({
      item: failed,
      rows: [{ line: 3, header: old.header, cells: ['u1', 'failed', '=cmd', '209', 'old', ''] }],
    });
    await writer.finish();
    const lines = out.text.split(/\r?\n/);
    expect(lines[0]).toBe('ExternalId,Email,status,error_codes,error_messages,action,note,run');
    expect(lines[1]).toBe("u1,'=cmd,failed,209,Email: bad address,,,20261101T010000.000Z-aaaa");
    expect(lines[2]).toBe("u1,'=cmd,failed,209,Email: bad address,,,20261102T010000.000Z-bbbb");
  });

  it('--only-failed keeps only rows that are not ok', async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out, true);
    await writer.item(entry(2, 'ok', [], ['u-2', 'a@x.test']));
    await writer.item(
      entry(3, 'partial', [{ field: 'Hierarchies[0]', code: 131, message: 'nf' }], ['u-3', 'b@x.test']),
    );
    await writer.finish();
    expect(out.text).not.toContain('u-2');
    expect(out.text).toContain('u-3,b@x.test,partial,131,Hierarchies[0]: nf');
  });

  it('keeps the Password column but never its cells (any spelling of the header)', async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out);
    const rowHeader = ['ExternalId', 'pass_word', 'Email'];
    await writer.item({
      item: { source: { file: 'u.csv', line: 2 }, id: 'u1', status: 'failed', errors: [] },
      rows: [{ line: 2, header: rowHeader, cells: ['u1', 'S3cret!pw', 'a@x.test'] }],
    });
    await writer.finish();
    expect(out.text).toBe(
      'ExternalId,pass_word,Email,status,error_codes,error_messages,action,note,run\r\nu1,,a@x.test,failed,,,,,\r\n',
    );
  });

  it('writes a PIN cell as withheld (any spelling of the header); an empty one stays empty', async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out);
    const rowHeader = ['ScheduleExtId', 'pin'];
    const item = (line: number) => ({
      source: { file: 's.csv', line },
      id: 'S-1',
      status: 'failed' as const,
      errors: [],
    });
    await writer.item({
      item: item(2),
      rows: [
        { line: 2, header: rowHeader, cells: ['S-1', '0420'] },
        { line: 3, header: rowHeader, cells: ['S-1', ' '] },
      ],
    });
    await writer.finish();
    expect(out.text).toBe(
      'ScheduleExtId,pin,status,error_codes,error_messages,action,note,run\r\nS-1,withheld,failed,,,,,\r\nS-1,,failed,,,,,\r\n',
    );
  });

  it("leaves out unnamed columns (a spreadsheet's empty trailing ones), so status stays after named columns only", async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out);
    await writer.item({
      item: { source: { file: 'u.csv', line: 2 }, id: 'u1', status: 'ok', errors: [] },
      rows: [{ line: 2, header: ['ExternalId', '', ''], cells: ['u1', '', ''] }],
    });
    await writer.finish();
    expect(out.text).toBe('ExternalId,status,error_codes,error_messages,action,note,run\r\nu1,ok,,,,,\r\n');
  });

  it('--only-failed with nothing left: the input header, not the generic one', async () => {
    const fromOkRow = new StringSink();
    const writer = new CsvReportWriter(fromOkRow, true);
    await writer.item(entry(2, 'ok', [], ['u-2', 'a@x.test']));
    await writer.finish();
    expect(fromOkRow.text).toBe('ExternalId,Email,status,error_codes,error_messages,action,note,run\r\n');
    // Rows passed over before they became items: the run tells the builder the header.
    const told = new StringSink();
    const builder = new RunReportBuilder([
      new CsvReportWriter(told, true),
      new JsonReportWriter(new StringSink(), header),
    ]);
    builder.sourceHeader(['ExternalId', 'Password', 'status', 'error_codes', 'error_messages']);
    await builder.finish();
    expect(told.text).toBe('ExternalId,Password,status,error_codes,error_messages,action,note,run\r\n');
  });

  it('writes file, line and id for items without CSV rows', async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out);
    await writer.item(entry(4, 'failed', [{ field: 'Title', code: null, message: '+danger' }]));
    await writer.finish();
    expect(out.text).toBe(
      'file,line,id,status,error_codes,error_messages,action,note,run\r\nusers.csv,4,u-4,failed,,Title: +danger,,,\r\n',
    );
  });

  it('puts a schedule error on the candidate line it concerns', async () => {
    const out = new StringSink();
    const writer = new CsvReportWriter(out);
    const rowHeader = ['CandidateExtId'];
    await writer.item({
      item: {
        source: { file: 's.csv', line: 2 },
        id: 'S-1',
        status: 'failed',
        errors: [{ line: 3, field: 'Candidates[1].Email', code: null, message: 'bad' }],
      },
      rows: [
        { line: 2, header: rowHeader, cells: ['c1'] },
        { line: 3, header: rowHeader, cells: ['c2'] },
      ],
    });
    const lines = out.text.split(/\r?\n/);
    expect(lines[1]).toBe('c1,failed,,,,,');
    expect(lines[2]).toBe('c2,failed,,Candidates[1].Email: bad,,,');
  });
});

describe('human summary', () => {
  it('names the target, counts, shows 20 errors and how many more', async () => {
    const out = new StringSink();
    const builder = new RunReportBuilder([new HumanSummaryWriter(out, header)]);
    for (let line = 2; line < 27; line++)
      await builder.add(entry(line, 'failed', [{ field: 'Email', code: 209, message: 'bad' }]));
    await builder.finish();
    expect(out.text).toContain('user sync on local store /tmp/s');
    expect(summaryOf(out.text)).toMatchObject({ total: 25, ok: 0, partial: 0, failed: 25, skipped: 0 });
    expect(itemLine(out.text, 'u-2', 'Email')).toMatch(/users\.csv:2 .* 209 bad$/);
    expect(out.text).not.toContain('users.csv:22 ');
    expect(out.text).toContain('... and 5 more');
  });

  it("says the job's notes beside the counts in the job's words, and none of its own (a report knows items, not what they mean to a command)", async () => {
    const unchanged = {
      source: { file: 'users.csv', line: 2 },
      id: 'u-2',
      status: 'ok' as const,
      errors: [],
      action: 'unchanged' as const,
      note: 'sent by run R-1',
    };
    const out = new StringSink();
    const notes = [
      {
        counts: (item: { action?: string }) => item.action === 'unchanged',
        words: (count: number) => `${count === 1 ? 'was' : 'were'} left alone (same as last night)`,
      },
    ];
    const builder = new RunReportBuilder([new HumanSummaryWriter(out, header, undefined, { notes })]);
    await builder.add({ item: unchanged });
    await builder.add({ item: { ...unchanged, id: 'u-3' } });
    await builder.finish();
    expect(out.text).toContain(
      '2 items: 2 ok, 0 partial, 0 failed, 0 skipped\n2 ok: 2 unchanged\n2 were left alone (same as last night)\n',
    );
    const plain = new StringSink();
    const without = new RunReportBuilder([new HumanSummaryWriter(plain, header)]);
    await without.add({ item: unchanged });
    await without.finish();
    // Only the count by action, in the report's own words.
    expect(plain.text).toContain('1 ok: 1 unchanged\n');
    expect(plain.text).not.toContain('not sent');
    // A dry run says only the notes that ask to be said of it, in their dry-run words.
    const dry = new StringSink();
    const dryNotes = [
      {
        counts: () => true,
        words: (_count: number, dryRun: boolean) => (dryRun ? 'would move' : 'moved'),
        inDryRun: true,
      },
      { counts: () => true, words: () => 'said of real runs only' },
    ];
    const dryBuilder = new RunReportBuilder([
      new HumanSummaryWriter(dry, { ...header, dryRun: true }, undefined, { notes: dryNotes }),
    ]);
    await dryBuilder.add({ item: unchanged });
    await dryBuilder.finish();
    expect(dry.text).toContain('1 would move');
    expect(dry.text).not.toContain('real runs only');
  });

  it("shows a failure's note under its errors (a resume's doubt), never an ok item's, and passes it through the terminal gate", async () => {
    const out = new StringSink();
    const builder = new RunReportBuilder([new HumanSummaryWriter(out, header)]);
    const doubt =
      'the interrupted attempt of run R-1 may have created it, or it existed before the run: check it\u001b[2J';
    await builder.add(entry(2, 'failed', [{ field: 'ExternalId', code: null, message: 'already exists' }]));
    await builder.add({
      item: {
        ...entry(3, 'failed', [{ field: 'ExternalId', code: null, message: 'already exists' }]).item,
        note: doubt,
      },
    });
    await builder.add({
      item: {
        source: { file: 'users.csv', line: 4 },
        id: 'u-4',
        status: 'ok',
        errors: [],
        action: 'created',
        note: 'created by the interrupted attempt',
      },
    });
    await builder.finish();
    expect(out.text).toContain(
      'users.csv:3 [u-3] ExternalId - already exists\n    note: the interrupted attempt of run R-1 may have created it, or it existed before the run: check it?[2J\n',
    );
    expect(out.text.match(/note:/g)).toHaveLength(1);
    expect(out.text).not.toContain('created by the interrupted attempt');
  });

  it('makes ids, file names and messages from the input or the service inert for the terminal (no ESC, no bidi override, no forged line)', async () => {
    const out = new StringSink();
    const builder = new RunReportBuilder([new HumanSummaryWriter(out, header)]);
    const hostile = {
      source: { file: 'in\u001b[2J.csv', line: 2 },
      id: 'x\u001b]0;title\u0007\u202eRED',
      status: 'failed' as const,
      errors: [{ field: 'ExternalId', code: 219 as const, message: 'bad\n  users.csv:9 [u-9] - - fine\u009b31m' }],
    };
    await builder.add({ item: hostile });
    await builder.add({
      item: {
        ...hostile,
        status: 'ok',
        errors: [],
        warnings: [{ field: 'Phone', code: 9003 as const, message: 'looks like \u001b[31ma number\u2066' }],
      },
    });
    await builder.finish();
    expect(out.text).toContain('in?[2J.csv:2 [x?]0;title??RED] ExternalId 219 bad\\n  users.csv:9 [u-9] - - fine?31m');
    expect(out.text).toContain('looks like ?[31ma number?');
    expect(out.text).not.toMatch(/[\u001b\u0007\u009b\u202e\u2066]/);
    expect(out.text.split('\n').filter((line) => line.includes('users.csv:9'))).toHaveLength(1);
  });
});

describe('what a gap in the sync memory costs, in the words of what it is a memory of', () => {
  const missed = { run: 'R-9', since: '2026-11-20T02:00:00.000Z', later: true as const };
  it('users: leavers, links and unchanged rows, rebuilt by synced adopt', () => {
    const words = missedRunSentence('/m/users.ndjson', 'staff', missed, 'users');
    expect(words).toContain('a user it created is not disabled when it leaves the file');
    expect(words).toContain(
      "examctl synced adopt --population staff --file <each night's file since the memory's newest run, in order> (--tentative",
    );
  });
  it('schedules: candidates and unchanged schedules, rebuilt by synced adopt-schedules; never a leaver', () => {
    const words = missedRunSentence('/m/schedules.ndjson', null, missed, 'schedules');
    expect(words).toContain(
      'a candidate it registered is not named when the file drops it, and a schedule it changed may be judged unchanged',
    );
    expect(words).toContain('examctl synced adopt-schedules --file <the last file sent>');
    expect(words).not.toMatch(/user|leaver|disabled/);
    const none = noMemorySentence({
      ...header,
      command: 'schedule push',
      syncMemory: {
        kind: 'schedules',
        found: false,
        file: '/m/schedules.ndjson',
        remembered: 0,
        population: null,
        populationFound: false,
      },
    });
    expect(none).toContain('no schedule was left out as unchanged');
    expect(none).toContain('(examctl synced adopt-schedules)');
    expect(none).not.toMatch(/leaver|disabled/);
  });

  it("says a dry run's costs in the present: it disabled and left out nothing", () => {
    const syncMemory = {
      kind: 'users',
      found: false,
      file: '/m/users.ndjson',
      remembered: 0,
      population: null,
      populationFound: false,
    } as const;
    expect(noMemorySentence({ ...header, syncMemory })).toContain('no leaver was disabled');
    const dry = noMemorySentence({ ...header, dryRun: true, syncMemory });
    expect(dry).toContain('no record is left out as unchanged, no leaver is disabled and no link or flag is pruned');
    expect(dry).not.toContain('leaver was');
  });
});
