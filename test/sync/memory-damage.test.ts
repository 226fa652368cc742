import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { UsageError } from '../../src/system/errors.js';
import { memoryOfText } from '../../src/sync/memory-files.js';
import { entryLine, headerLine, populationBody } from '../../src/sync/memory-lines.js';
import { readDocument, summedText } from '../../src/sync/memory-document.js';
import { readMemory } from '../../src/sync/memory-files.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * A memory's lines read by memoryOfText (docs/sync.md, "Format"): a line whose checksum holds but
 * whose body is not what it should be, a line whose frame was changed, and a file whose line ends
 * are gone are damage (exit 2 naming the file and line), never a crash nor an empty memory; a
 * line a kill cut short stays what it was.
 */

const target = { kind: 'local', store: '/tmp/damage-store' } as const;
const FILE = '/sync/users.ndjson';
const header = headerLine('users', target);
const entry = (id: string) =>
  entryLine(id, { digest: 'd'.repeat(43), run: '20261126T000000.000Z-0001', firstName: 'A', lastName: 'B' });
const line = (body: unknown) => encodeChecksummedLine(JSON.stringify(body));
const whole =
  header +
  entry('u1') +
  entry('u2') +
  line(JSON.parse(populationBody('', { run: '20261126T000000.000Z-0001', count: 2 })));

function read(text: string) {
  const contents = memoryOfText(Buffer.from(text, 'latin1'), FILE, 'users', target);
  // Every entry parsed, as an import or --disable-missing does.
  for (const _entry of contents.entries.values());
  return contents;
}

function refused(text: string): UsageError {
  try {
    read(text);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).code).toBe('E2507');
    return error as UsageError;
  }
  throw new Error('read, not refused');
}

describe('a memory line whose checksum holds but whose body is not one', () => {
  it('reads the memory as written', () => {
    const contents = read(whole);
    expect(contents.entries.size).toBe(2);
    expect(contents.target).toEqual(target);
  });

  it("reads an older examctl's header naming its store's instance (`i`): the memory is kept", () => {
    const older = line({ t: 'sync-memory', v: 3, kind: 'users', target, i: 'inst-1' });
    const contents = read(`${older}${entry('u1')}${entry('u2')}`);
    expect(contents.entries.size).toBe(2);
    expect(contents.target).toEqual(target);
  });

  it.each([
    ['null', null, 'not a sync memory line'],
    ['a number', 5, 'not a sync memory line'],
    ['text', 'u3', 'not a sync memory line'],
    ['a list', ['u3'], 'not a memory entry'],
    ['a forget line whose mark is not true', { gone: 'yes', id: 'u1', d: '', r: 'r', t: true }, 'not a memory entry'],
    ['a first run that is not text', { id: 'u3', d: 'x', r: 'r', j: 7 }, 'its first run is not text'],
    [
      'a population line whose end mark is not true or false',
      { t: 'population', r: 'r', n: 1, e: 'no' },
      'its end mark is not true or false',
    ],
  ])('%s is exit 2 naming the file and line', (_name, body, reason) => {
    expect(refused(header + entry('u1') + line(body) + entry('u2')).message).toContain(
      `${FILE}:3: sync memory damaged: ${reason}`,
    );
  });

  it.each([
    ['{}', {}],
    ['a local one without its path', { kind: 'local' }],
    ['a server whose address is not text', { kind: 'remote', baseUrl: 5 }],
    ['null', null],
    ['text', 'local /tmp/damage-store'],
  ])('a header whose target is %s is exit 2 naming line 1', (_name, value) => {
    const head = line({ t: 'sync-memory', v: 2, kind: 'users', target: value });
    expect(refused(head + entry('u1')).message).toContain(
      `${FILE}:1: sync memory damaged: its target is not a store or a server`,
    );
  });

  it('a header with a format as text is exit 2 naming line 1', () => {
    const head = line({ t: 'sync-memory', v: '2', kind: 'users', target });
    // E2507 (checked by refused): the file, its line and the reason.
    expect(refused(head + entry('u1')).message).toMatch(new RegExp(`^${FILE}:1: .*not a sync memory\\b`));
  });

  it('an export whose memory holds such a line is refused by synced import (exit 2), naming the line', () => {
    const memory = header + entry('u1') + line(null);
    const text = summedText({
      format: 'examctl-sync-memory',
      version: 1,
      serial: 0,
      target,
      identity: `local ${target.store}`,
      memoryFormat: 2,
      newestRun: null,
      populations: {},
      memories: { users: memory },
    });
    expect(() => readDocument(text, 'bad.json')).toThrow(
      /bad\.json \(users\):3: sync memory damaged: not a sync memory line/,
    );
  });
});

describe('a line whose frame is changed (its body and checksum intact)', () => {
  it('is not a journal line: exit 2 at open, naming it, though a later line of its id wins', () => {
    for (const damaged of [entry('u2').replace(',"b":', ',\xffb":'), entry('u2').replace('{"crc"', '{"crx"')]) {
      expect(refused(header + entry('u1') + damaged + entry('u2')).message).toContain(
        `${FILE}:3: sync memory damaged: not a journal line`,
      );
    }
  });
});

describe('a memory with no line end where lines end', () => {
  it('line ends turned into CR: exit 2 naming line 1, never an empty memory', () => {
    expect(refused(whole.replaceAll('\n', '\r')).message).toContain(
      `${FILE}:1: sync memory damaged: no line end, and not a line cut short`,
    );
  });

  it('line ends after the header turned into CR: exit 2 naming line 2', () => {
    expect(refused(header + (entry('u1') + entry('u2')).replaceAll('\n', '\r')).message).toContain(
      `${FILE}:2: sync memory damaged: no line end`,
    );
  });

  it('a first line longer than a header or not beginning as one: exit 2', () => {
    expect(refused(header.slice(0, 40) + 'x'.repeat(70_000)).message).toContain(`${FILE}:1: sync memory damaged`);
    expect(refused('{"crc":"00000000","b":{"id":"u1"').message).toContain(`${FILE}:1: sync memory damaged`);
  });

  it('a header cut short by a kill is no memory yet; an entry cut short is cut off, the rest read', () => {
    for (const cut of [1, 12, 40, header.length - 1]) expect(read(header.slice(0, cut)).lines).toBe(0);
    const torn = read(header + entry('u1') + entry('u2').slice(0, 60));
    expect([torn.lines, torn.entries.size, torn.validLength]).toEqual([2, 1, header.length + entry('u1').length]);
    expect(read(header + entry('u1') + '{"c":"torn by a kill').entries.size).toBe(1);
  });
});

describe("a header scan of another target's memory (readMemory with a limit: what a start-up reads of the state folder)", () => {
  it('parses its header line only: the entries after it are neither read nor judged (issue 82)', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'users.ndjson');
      // A second line that is damage: read whole, the memory is refused.
      await writeFile(file, `${header}${line('u3')}${entry('u1')}`, { mode: 0o600 });
      await expect(readMemory(file, 'users')).rejects.toThrow(/users\.ndjson:2: sync memory damaged/);
      const head = await readMemory(file, 'users', undefined, 65_536);
      expect(head.target).toEqual(target);
      expect(head.entries.size).toBe(0);
    });
  });

  it("reads a header line past the first read's 4 KiB; one longer than the limit names no target", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'users.ndjson');
      const far = { kind: 'local', store: `/tmp/${'s'.repeat(5_000)}` } as const;
      await writeFile(file, `${headerLine('users', far)}${entry('u1')}`, { mode: 0o600 });
      const head = await readMemory(file, 'users', undefined, 65_536);
      expect(head.target).toEqual(far);
      expect((await readMemory(file, 'users', undefined, 4_096)).target).toBeUndefined();
    });
  });
});
