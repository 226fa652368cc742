/**
 * Map files with values (docs/input-formats.md, "Map files"), through the real CLI: an SIS export
 * whose department names a value table translates, an HR export whose Y/N columns add permission
 * flags to a Hierarchies built from a department column, templates and fallbacks; a word the table
 * does not know fails its row by name; every map file refusal names the file, its line and the key;
 * a huge map file is refused by its size, unread.
 */
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

interface Item {
  id: string;
  status: string;
  errors: { field: string; message: string }[];
  mapped?: { field: string; value: string; from: Record<string, string> }[];
}

async function run(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string; stdout: string; items: Item[] }> {
  const io = testDeps(dir, {}, env);
  const code = await runCli(['--store', join(dir, 'store'), ...args], io.deps);
  let items: Item[] = [];
  if (args.includes('--json') && io.stdout.text.startsWith('{'))
    items = (JSON.parse(io.stdout.text) as { items: Item[] }).items;
  return { code, stderr: io.stderr.text, stdout: io.stdout.text, items };
}

const SIS = [
  'Student ID,Given name,Surname,E-Mail,Subject,Year group',
  'S-1,Ann,Lee,ann@example.test,Mathematics,Year 10',
  'S-2,Bo,Ng,bo@example.test,  science ,Year 11',
  'S-3,Cy,Od,cy@example.test,Mathematics|Science,Year 13',
  'S-4,Di,Po,di@example.test,Maths,Year 10',
  'S-5,Ed,Qu,ed@example.test,,Year 10',
].join('\n');

const SIS_MAP = {
  '//': 'the SIS export',
  'Student ID': 'ExternalId',
  'Given name': 'FirstName',
  Surname: 'LastName',
  Subject: { field: 'Hierarchies', values: { Mathematics: 'DEPT-MATH', Science: 'DEPT-SCI' } },
  'Year group': { field: 'Labels', values: { 'Year 10': 'Y10', 'Year 11': 'Y11' }, default: 'Y-OTHER' },
};

const membership = (id: string, flags: string[] = []) => ({
  ExternalId: id,
  IsCoordinator: flags.includes('coordinator'),
  IsAdministrator: flags.includes('administrator'),
  HasViewReportsPermissions: flags.includes('reports'),
  HasReScoringPermissions: flags.includes('rescoring'),
});

describe('value tables', () => {
  it("translate an SIS export's words, case and spacing forgiven, with a default; a word with no entry fails its row naming the word, the column and the known words", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sis.csv'), SIS);
      await writeFile(join(dir, 'sis-map.json'), JSON.stringify(SIS_MAP, null, 2));
      const { code, items, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'sis.csv',
        '--map-file',
        'sis-map.json',
        '--set',
        'Role=Candidate',
        '--set',
        'UserName=x',
        '--dry-run',
        '--json',
      ]);
      expect(code, stderr).toBe(1);
      expect(items.map((item) => [item.id, item.status])).toEqual([
        ['S-1', 'ok'],
        ['S-2', 'ok'],
        ['S-3', 'ok'],
        ['S-4', 'failed'],
        ['S-5', 'ok'],
      ]);
      expect(items[3]!.errors).toEqual([
        {
          field: 'Hierarchies',
          code: 9016,
          message:
            'Subject "Maths" has no entry in the value table of --map-file sis-map.json:6 "Subject" (known: "Mathematics", "Science"); it is not sent as it is: add it to "values", or give a "default"',
        },
      ]);
      // The values beside the cells they came from, in the JSON report.
      expect(items[1]!.mapped).toEqual([
        { field: 'Hierarchies', value: 'DEPT-SCI', from: { Subject: 'science' } },
        { field: 'Labels', value: 'Y11', from: { 'Year group': 'Year 11' } },
      ]);
      expect(items[2]!.mapped?.find((value) => value.field === 'Hierarchies')?.value).toBe('DEPT-MATH|DEPT-SCI');
      expect(items[2]!.mapped?.find((value) => value.field === 'Labels')?.value).toBe('Y-OTHER');
      // An empty cell stays empty: nothing translated, nothing sent for it.
      expect(items[4]!.mapped).toEqual([{ field: 'Labels', value: 'Y10', from: { 'Year group': 'Year 10' } }]);
      // The dry run's summary shows each distinct value beside its cells.
      expect(stderr).toContain(
        'values from the map file, beside the cells they came from:\n  Hierarchies "DEPT-MATH" from Subject "Mathematics"\n',
      );
      expect(stderr).toContain('  Labels "Y10" from Year group "Year 10" (3 rows)');
    }));

  it('an accent matches however it is encoded: a Windows-1252 export against a map file saved with combining accents', () =>
    withTempDir(async (dir) => {
      // Excel's "CSV" on a French Windows: é and è are single bytes, decoded as single code points (NFC).
      await writeFile(
        join(dir, 'fr.csv'),
        Buffer.from(
          'ExternalId;FirstName;LastName;Email;Role;Matière\r\nF-1;Zoé;Roy;zoe@example.test;Candidate;Mathématiques\r\n',
          'latin1',
        ),
      );
      // The map file's keys and words as some editors save them: e and a combining accent (NFD).
      const decomposed = (text: string) => text.normalize('NFD');
      expect(decomposed('Matière')).not.toBe('Matière');
      await writeFile(
        join(dir, 'fr-map.json'),
        JSON.stringify({
          [decomposed('Matière')]: { field: 'Hierarchies', values: { [decomposed('Mathématiques')]: 'DEPT-MATH' } },
        }),
      );
      const { code, items, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'fr.csv',
        '--encoding',
        'windows-1252',
        '--map-file',
        'fr-map.json',
        '--set',
        'UserName=zoe',
        '--dry-run',
        '--json',
      ]);
      expect(code, stderr).toBe(0);
      expect(items[0]!.mapped).toEqual([
        { field: 'Hierarchies', value: 'DEPT-MATH', from: { Matière: 'Mathématiques' } },
      ]);
    }));

  it('a word matches only as written but for case and whitespace around or repeated: a hyphen, an underscore or a space between characters makes another word, which fails as unknown', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'year.csv'),
        [
          'Student ID,FirstName,LastName,Email,Role,Year group,Room',
          'vm-1,A,A,vm1@example.test,Candidate,Year 1-2,HNorth',
          'vm-2,A,B,vm2@example.test,Candidate,Year_12,h_south',
          'vm-3,A,C,vm3@example.test,Candidate,YEAR12,H-North',
          'vm-4,A,D,vm4@example.test,Candidate,"  year   12 ",h   NORTH',
          'vm-5,A,E,vm5@example.test,Candidate,Year 1,H South',
        ].join('\n'),
      );
      await writeFile(
        join(dir, 'year-map.json'),
        JSON.stringify(
          {
            'Student ID': 'ExternalId',
            'Year group': { field: 'Labels', values: { 'Year 12': 'Y12', 'Year 1': 'Y1' } },
            Room: { field: 'Hierarchies', values: { 'H North': 'H-NORTH', 'H South': 'H-SOUTH' } },
          },
          null,
          2,
        ),
      );
      const { code, items, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'year.csv',
        '--map-file',
        'year-map.json',
        '--set',
        'UserName=x',
        '--dry-run',
        '--json',
      ]);
      expect(code, stderr).toBe(1);
      const value = (item: Item, field: string) => item.mapped?.find((mapped) => mapped.field === field)?.value;
      expect(items.map((item) => [item.id, item.status, value(item, 'Labels'), value(item, 'Hierarchies')])).toEqual([
        ['vm-1', 'failed', undefined, undefined],
        ['vm-2', 'failed', undefined, undefined],
        ['vm-3', 'failed', undefined, undefined],
        ['vm-4', 'ok', 'Y12', 'H-NORTH'],
        ['vm-5', 'ok', 'Y1', 'H-SOUTH'],
      ]);
      // Reported as any unknown word is: the word, the column, the entry and the known words.
      expect(items[0]!.errors.map((error) => error.message)).toEqual([
        'Year group "Year 1-2" has no entry in the value table of --map-file year-map.json:3 "Year group" (known: "Year 12", "Year 1"); it is not sent as it is: add it to "values", or give a "default"',
        'Room "HNorth" has no entry in the value table of --map-file year-map.json:10 "Room" (known: "H North", "H South"); it is not sent as it is: add it to "values", or give a "default"',
      ]);
      expect(items[1]!.errors.map((error) => error.message.split(' has no entry')[0])).toEqual([
        'Year group "Year_12"',
        'Room "h_south"',
      ]);
      expect(items[2]!.errors.map((error) => error.message.split(' has no entry')[0])).toEqual([
        'Year group "YEAR12"',
        'Room "H-North"',
      ]);
    }));

  it('two words a table cannot tell apart are refused only when they differ in case or whitespace: Year 12 and Year-12 are two words', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'year.csv'),
        'ExternalId,FirstName,LastName,Email,Role,Year group\nw-1,A,B,w1@example.test,Candidate,Year-12\n',
      );
      await writeFile(
        join(dir, 'two.json'),
        JSON.stringify({ 'Year group': { field: 'Labels', values: { 'Year 12': 'Y12', 'Year-12': 'Y12-MIXED' } } }),
      );
      const two = await run(dir, [
        'user',
        'sync',
        '--file',
        'year.csv',
        '--map-file',
        'two.json',
        '--set',
        'UserName=x',
        '--dry-run',
        '--json',
      ]);
      expect(two.code, two.stderr).toBe(0);
      expect(two.items[0]!.mapped).toEqual([
        { field: 'Labels', value: 'Y12-MIXED', from: { 'Year group': 'Year-12' } },
      ]);
      await writeFile(
        join(dir, 'alike.json'),
        JSON.stringify({ 'Year group': { field: 'Labels', values: { 'Year 12': 'Y12', ' YEAR  12': 'Y13' } } }),
      );
      const alike = await run(dir, [
        'user',
        'sync',
        '--file',
        'year.csv',
        '--map-file',
        'alike.json',
        '--set',
        'UserName=x',
        '--dry-run',
      ]);
      expect(alike.code).toBe(2);
      expect(alike.stderr).toContain(
        '"Year 12" and " YEAR  12" are one word to examctl (case, and whitespace around or repeated, do not matter) but stand for different values',
      );
    }));

  it('what is sent is the platform word, never the export word (a loopback server sees the requests)', () =>
    withTempDir(async (dir) => {
      const http = await import('node:http');
      const bodies: Record<string, unknown>[] = [];
      const server = http.createServer((req, res) => {
        if (answeredAsPlatform(req, res)) return;
        let text = '';
        req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        req.on('end', () => {
          const body = JSON.parse(text) as Record<string, unknown>;
          bodies.push(body);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ Content: { User: body, GroupErrors: [] }, Success: true, Errors: null }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        await writeFile(join(dir, 'sis.csv'), SIS);
        await writeFile(join(dir, 'sis-map.json'), JSON.stringify(SIS_MAP));
        const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'dev-token' });
        const code = await runCli(
          [
            '--base-url',
            url,
            '--allow-insecure-http',
            '--yes',
            'user',
            'sync',
            '--file',
            'sis.csv',
            '--map-file',
            'sis-map.json',
            '--set',
            'Role=Candidate',
          ],
          io.deps,
        );
        expect(code, io.stderr.text).toBe(1);
        const sent = bodies
          .map((body) => [body.ExternalId, body.Hierarchies, body.Labels])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        expect(sent).toEqual([
          ['S-1', [membership('DEPT-MATH')], ['Y10']],
          ['S-2', [membership('DEPT-SCI')], ['Y11']],
          ['S-3', [membership('DEPT-MATH'), membership('DEPT-SCI')], ['Y-OTHER']],
          ['S-5', undefined, ['Y10']],
        ]);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }));
});

const HR = [
  'Staff number,First name,Last name,Work email,Home email,Department,Exams Officer,Sees Reports,Rescores',
  'T-100,Ann,Lee,ann.lee@school.example,,Mathematics,Y,N,',
  'T-101,Bob,Ng,,bob@home.example,Science,n,yes,1',
  'T-102,Cy,Od,cy@school.example,,Science,TRUE,true,0',
  'T-103,Di,Po,di@school.example,,,Y,N,',
  'T-104,Ed,Qu,ed@school.example,,Mathematics,maybe,N,',
  'T-105,Fay,,fay@school.example,,Mathematics,N,N,N',
  'T-106,Gil,Ro,gil@school.example,,Maths|Chem,maybe,Y,perhaps',
].join('\n');

const HR_MAP = {
  'Staff number': 'ExternalId',
  'First name': 'FirstName',
  'Last name': 'LastName',
  UserName: { template: '{First name}.{Last name}@school' },
  Email: { column: 'Work email', fallback: 'Home email' },
  Hierarchies: {
    column: 'Department',
    values: { Mathematics: 'DEPT-MATH', Science: 'DEPT-SCI' },
    flags: { 'Exams Officer': 'coordinator', 'Sees Reports': 'reports', Rescores: 'HasReScoringPermissions' },
  },
};

describe('computed fields', () => {
  it('Hierarchies from a department column and Y/N, true/false, 1/0 columns; a template; a fallback column', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'hr.csv'), HR);
      await writeFile(join(dir, 'hr-map.json'), JSON.stringify(HR_MAP, null, 2));
      const { code, items, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'hr.csv',
        '--map-file',
        'hr-map.json',
        '--set',
        'Role=Author',
        '--dry-run',
        '--json',
      ]);
      expect(code, stderr).toBe(1);
      const value = (item: Item, field: string) => item.mapped?.find((mapped) => mapped.field === field)?.value;
      expect(
        items.map((item) => [
          item.id,
          item.status,
          value(item, 'Hierarchies'),
          value(item, 'UserName'),
          value(item, 'Email'),
        ]),
      ).toEqual([
        ['T-100', 'ok', 'DEPT-MATH:coordinator', 'Ann.Lee@school', 'ann.lee@school.example'],
        ['T-101', 'ok', 'DEPT-SCI:reports+rescoring', 'Bob.Ng@school', 'bob@home.example'],
        ['T-102', 'ok', 'DEPT-SCI:coordinator+reports', 'Cy.Od@school', 'cy@school.example'],
        ['T-103', 'failed', undefined, 'Di.Po@school', 'di@school.example'],
        ['T-104', 'failed', undefined, 'Ed.Qu@school', 'ed@school.example'],
        // A template gives a value only when every column it names has one: UserName is then the field's own rule's.
        ['T-105', 'failed', 'DEPT-MATH', undefined, 'fay@school.example'],
        ['T-106', 'failed', undefined, 'Gil.Ro@school', 'gil@school.example'],
      ]);
      expect(items[0]!.mapped?.find((mapped) => mapped.field === 'Hierarchies')?.from).toEqual({
        Department: 'Mathematics',
        'Exams Officer': 'Y',
        'Sees Reports': 'N',
      });
      expect(items[3]!.errors[0]!.message).toBe(
        'Exams Officer "Y" gives the flag coordinator but "Department" is empty: a flag needs a hierarchy (--map-file hr-map.json:12 "Hierarchies")',
      );
      expect(items[4]!.errors[0]!.message).toBe(
        'Exams Officer "maybe" is not yes or no (Y/N, yes/no, true/false, 1/0): it gives the coordinator flag of Hierarchies (--map-file hr-map.json:12 "Hierarchies")',
      );
      expect(items[5]!.errors.map((error) => error.field)).toContain('LastName');
      // Every problem of a row at once, not one per run: both bad flags and both unknown words.
      expect(items[6]!.errors.map((error) => error.message)).toEqual([
        expect.stringMatching(/^Exams Officer "maybe" is not yes or no/),
        expect.stringMatching(/^Rescores "perhaps" is not yes or no/),
        expect.stringMatching(/^Department "Maths" has no entry in the value table/),
        expect.stringMatching(/^Department "Chem" has no entry in the value table/),
      ]);
    }));

  it('JSON records and .xlsx sheets are read the same way: their keys and headers are the columns', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'hr-map.json'), JSON.stringify(HR_MAP));
      const records = [
        {
          'Staff number': 'T-1',
          'First name': 'Ann',
          'Last name': 'Lee',
          'Home email': 'ann@home.example',
          Department: 'Mathematics',
          'Exams Officer': true,
          'Sees Reports': 'N',
          Rescores: 0,
        },
      ];
      await writeFile(join(dir, 'hr.json'), JSON.stringify(records));
      const json = await run(dir, [
        'user',
        'sync',
        '--file',
        'hr.json',
        '--map-file',
        'hr-map.json',
        '--set',
        'Role=Author',
        '--dry-run',
        '--json',
      ]);
      expect(json.code, json.stderr).toBe(0);
      expect(json.items[0]!.mapped?.map((mapped) => [mapped.field, mapped.value])).toEqual([
        ['UserName', 'Ann.Lee@school'],
        ['Email', 'ann@home.example'],
        ['Hierarchies', 'DEPT-MATH:coordinator'],
      ]);
      await writeWorkbook(join(dir, 'hr.xlsx'), [
        {
          name: 'Staff',
          rows: [HR.split('\n')[0]!.split(','), ['T-2', 'Bo', 'Ng', 'bo@school.example', '', 'Science', 'N', 'Y', '']],
        },
      ]);
      const xlsx = await run(dir, [
        'user',
        'sync',
        '--file',
        'hr.xlsx',
        '--map-file',
        'hr-map.json',
        '--set',
        'Role=Author',
        '--dry-run',
        '--json',
      ]);
      expect(xlsx.code, xlsx.stderr).toBe(0);
      expect(xlsx.items[0]!.mapped?.find((mapped) => mapped.field === 'Hierarchies')?.value).toBe('DEPT-SCI:reports');
    }));

  it('a header the map file cannot use is refused before anything is read: a template column missing, a flag column missing, a field both a column and computed', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'hr-map.json'), JSON.stringify(HR_MAP, null, 2));
      const base = ['user', 'sync', '--map-file', 'hr-map.json', '--set', 'Role=Author', '--dry-run'];
      await writeFile(join(dir, 'no-last.csv'), 'Staff number,First name,Work email\nT-1,Ann,a@x.example\n');
      const noLast = await run(dir, [...base, '--file', 'no-last.csv']);
      expect(noLast.code).toBe(2);
      expectCoded(
        noLast.stderr,
        'E2100',
        'no-last.csv:1: --map-file hr-map.json:5 "UserName"',
        '"Last name"',
        'header',
      );
      await writeFile(
        join(dir, 'no-flag.csv'),
        'Staff number,First name,Last name,Work email,Department,Exams Officer\nT-1,Ann,Lee,a@x.example,Science,N\n',
      );
      const noFlag = await run(dir, [...base, '--file', 'no-flag.csv']);
      expect(noFlag.code).toBe(2);
      expectCoded(
        noFlag.stderr,
        'E2100',
        '--map-file hr-map.json:12 "Hierarchies"',
        '"Sees Reports", "Rescores"',
        'header',
      );
      await writeFile(
        join(dir, 'both.csv'),
        'Staff number,First name,Last name,UserName,Work email\nT-1,Ann,Lee,ann,a@x.example\n',
      );
      const both = await run(dir, [...base, '--file', 'both.csv']);
      expect(both.code).toBe(2);
      expectCoded(both.stderr, 'E2100', 'UserName', '--map-file hr-map.json:5 "UserName"');
      // A file with none of an entry's columns: the entry does nothing (one map file serves several exports).
      await writeFile(
        join(dir, 'plain.csv'),
        'Staff number,First name,Last name,Work email,UserName\nT-1,Ann,Lee,a@x.example,ann\n',
      );
      await writeFile(join(dir, 'plain-map.json'), JSON.stringify({ ...HR_MAP, UserName: undefined }));
      const plain = await run(dir, [
        'user',
        'sync',
        '--map-file',
        'plain-map.json',
        '--set',
        'Role=Author',
        '--dry-run',
        '--file',
        'plain.csv',
        '--json',
      ]);
      expect(plain.code, plain.stderr).toBe(0);
    }));
});

describe('map file refusals name the file, the line and the key', () => {
  const cases: [string, string, string][] = [
    [
      'an unknown flag',
      '{\n  "Hierarchies": {\n    "column": "Department",\n    "flags": {\n      "Exams Officer": "coordinater"\n    }\n  }\n}',
      'bad.json:5: "Hierarchies" > "flags" > "Exams Officer": not a flag: one of coordinator, administrator, reports, rescoring',
    ],
    [
      'an unknown key in an entry',
      '{\n  "Subject": {\n    "field": "Labels",\n    "value": {"Maths": "M"}\n  }\n}',
      'bad.json:2: "Subject": unknown key "value": an entry takes "field", "values", "default"',
    ],
    [
      'a word that is not a string',
      '{\n  "Subject": {\n    "field": "Labels",\n    "values": {\n      "Maths": 7\n    }\n  }\n}',
      'bad.json:5: "Subject" > "values" > "Maths": expected the platform\'s value (a string)',
    ],
    [
      'column and template both',
      '{"UserName": {"column": "Login", "template": "{A}"}}',
      'bad.json:1: "UserName": give "column" or "template" (one of them)',
    ],
    [
      'a template naming no column',
      '{\n"UserName": {"template": "fixed"}}',
      'bad.json:2: "UserName" > "template": it names no column ({Column name}); a value for every row is --set\'s',
    ],
    [
      'a template with a brace left open',
      '{"UserName": {"template": "{Given name.{Surname}"}}',
      '"UserName" > "template": the braces at character 1 hold no column name (write {{ for a brace itself)',
    ],
    [
      'two words that match alike but differ',
      '{"S": {"field": "Labels", "values": {"Maths": "A",\n "MATHS": "B"}}}',
      'bad.json:2: "S" > "values" > "MATHS": "Maths" and "MATHS" are one word to examctl',
    ],
    [
      'a default without values',
      '{"S": {"field": "Labels", "default": "x"}}',
      '"S" > "default": a "default" needs "values"',
    ],
    [
      'flags on another field',
      '{"Labels": {"column": "Dept", "flags": {"X": "reports"}}}',
      '"Labels" > "flags": "flags" add permissions to memberships: only a Hierarchies entry takes them',
    ],
    [
      'a key given twice',
      '{"Subject": "Labels",\n"Subject": "Hierarchies"}',
      'bad.json:2: "Subject" is mapped twice (first on line 1)',
    ],
    [
      'a word given twice',
      '{"S": {"field": "Labels", "values": {"A": "1",\n "A": "2"}}}',
      'bad.json:2: "S" > "values" > "A" is given twice (first on line 1)',
    ],
    [
      'an unknown field',
      '{\n"Student ID": "ExternalId",\n"Nick": "Nickname"}',
      '--map-file bad.json:3 "Nick": its value is not a field name; the fields of user sync: ExternalId,',
    ],
    [
      'an unknown computed field',
      '{\n"Nickname": {"template": "{A}"}}',
      '--map-file bad.json:2 "Nickname": unknown field "Nickname"',
    ],
    ['not JSON', '{\n"a": "ExternalId",\n}', 'bad.json:3: not valid JSON'],
  ];
  it.each(cases)('%s', (_name, text, message) =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'bad.json'), text);
      const { code, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'not-there.csv',
        '--map-file',
        'bad.json',
        '--dry-run',
      ]);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(message);
      expect(stderr).not.toContain('not-there');
    }),
  );

  it('a token file in JSON given as a map file: line and key, never its value (stderr and --json)', () =>
    withTempDir(async (dir) => {
      const secret = 'Zq7Vt3Rk9wLm2PxB8nHc4JdY6sQe1';
      await writeFile(
        join(dir, 'creds.json'),
        JSON.stringify({
          token: secret,
          template: { template: `{${secret}` },
          flags: { column: 'A', flags: { X: secret } },
        }),
      );
      for (const json of [[], ['--json']]) {
        const { code, stdout, stderr } = await run(dir, [
          'user',
          'sync',
          '--file',
          'not-there.csv',
          '--map-file',
          'creds.json',
          '--dry-run',
          ...json,
        ]);
        expect(code).toBe(2);
        expect(`${stdout}${stderr}`).toContain('creds.json:1');
        expect(`${stdout}${stderr}`).not.toContain(secret.slice(0, 8));
      }
      for (const entry of [
        { template: { template: `{${secret}` } },
        { Hierarchies: { column: 'A', flags: { X: secret } } },
        { a: { field: 'Labels', values: { x: secret, X: 'other' } } },
      ]) {
        await writeFile(join(dir, 'one.json'), JSON.stringify(entry));
        const { code, stderr } = await run(dir, [
          'user',
          'sync',
          '--file',
          'not-there.csv',
          '--map-file',
          'one.json',
          '--dry-run',
        ]);
        expect(code).toBe(2);
        expect(stderr).toContain('one.json:1');
        expect(stderr).not.toContain(secret.slice(0, 8));
      }
    }));

  it('a map file over the size limit is refused by its size, not read (a sparse 700 MB file)', () =>
    withTempDir(async (dir) => {
      const handle = await open(join(dir, 'huge.json'), 'w');
      await handle.truncate(700 * 1024 * 1024);
      await handle.close();
      const { code, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'not-there.csv',
        '--map-file',
        'huge.json',
        '--dry-run',
      ]);
      expect(code).toBe(2);
      expectCoded(stderr, 'E2102', '--map-file huge.json', '4 MiB');
    }));

  it("today's form, one object of column -> field, is read as it always was", () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'sis.csv'),
        'Student ID,Given name,Surname,Email,UserName,Role\nS-1,Ann,Lee,ann@example.test,ann,Candidate\n',
      );
      await writeFile(
        join(dir, 'old.json'),
        JSON.stringify({ 'Student ID': 'ExternalId', 'Given name': 'FirstName', Surname: 'LastName' }),
      );
      const { code, items, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'sis.csv',
        '--map-file',
        'old.json',
        '--dry-run',
        '--json',
      ]);
      expect(code, stderr).toBe(0);
      expect(items[0]).toMatchObject({ id: 'S-1', status: 'ok' });
      expect(items[0]!.mapped).toBeUndefined();
    }));

  it('a map file refused for its content is E2100, as for its syntax (an input file the user wrote); a --map flag E2000', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'u.csv'), 'Student ID,First,Last,Mail\ns1,Ann,Lee,ann@example.test\n');
      const maps: Record<string, [string, string]> = {
        syntax: ['{"Student ID": "ExternalId",}', 'syntax.json:1'],
        unknownField: ['{"Student ID": "ExternalId", "First": "FirstNam"}', '"First"'],
        twoOntoOne: ['{"Student ID": "ExternalId", "First": "FirstName", "Last": "FirstName"}', 'FirstName'],
        keyTwice: ['{"Student ID": "ExternalId", "First": "FirstName", "First": "LastName"}', '"First"'],
        badEntry: ['{"Student ID": "ExternalId", "First": {"field": "FirstName", "values": 3}}', '"values"'],
        notAnObject: ['["ExternalId"]', 'notAnObject.json'],
        computedAndRead: [
          '{"Student ID": "ExternalId", "Mail": "Email", "Email": {"template": "{First}@example.test"}}',
          'Email',
        ],
      };
      for (const [name, [text, fact]] of Object.entries(maps)) {
        await writeFile(join(dir, `${name}.json`), text);
        const refused = await run(dir, ['user', 'sync', '--file', 'u.csv', '--map-file', `${name}.json`, '--dry-run']);
        expect(refused.code, name).toBe(2);
        expectCoded(refused.stderr, 'E2100', `--map-file ${name}.json`, fact);
      }
      // --json: an input-file error naming the map file and the line, as for its syntax (docs/ci.md, `kind`).
      const json = await run(dir, ['user', 'sync', '--file', 'u.csv', '--map-file', 'twoOntoOne.json', '--json']);
      expect(JSON.parse(json.stdout).error).toMatchObject({
        code: 'E2100',
        kind: 'input-file',
        file: join(dir, 'twoOntoOne.json'),
        line: 1,
      });
      const flag = await run(dir, ['user', 'sync', '--file', 'u.csv', '--map', 'First=FirstNam', '--dry-run']);
      expect(flag.code).toBe(2);
      expectCoded(flag.stderr, 'E2000', '--map', 'FirstNam');
    }));
});
