import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCodeId } from '../../src/system/error-codes.js';
import { ROOT } from '../support/cli.js';

/*
 * Each code of src/system/error-codes.ts has a test that produces it (as test/domain/codes-produced.test.ts
 * does for a record's codes): the test file and a line of it that asserts the code in a run's
 * message or --json document. A code added to the table fails here (and in tsc) until its line
 * names the test that produces it; a code thrown but not in the table does not type-check.
 */
const PRODUCED: Record<ErrorCodeId, readonly [string, string] | null> = {
  E2000: ['test/cli/commands.test.ts', "'examctl: E2000: --report r.txt'"],
  E2001: ['test/cli/commands.test.ts', `"examctl: E2001: unknown option '--nope'"`],
  E2002: ['test/cli/error-codes.test.ts', "expect(JSON.parse(io.stdout.text).error.code).toBe('E2002')"],
  E2003: ['test/cli/error-codes.test.ts', "expectCoded(help.stderr.text, 'E2003', '--json', '--help')"],
  E2004: ['test/cli/error-codes.test.ts', 'toMatch(/^examctl: E2004: .*"E2999"/)'],
  E2005: ['test/cli/error-codes.test.ts', "toEqual(['E2005', 'E2005'])"],
  E2006: ['test/platform/home.test.ts', "expectCoded(noRuns.stderr.text, 'E2006', 'HOME', 'EXAMCTL_RUNS_DIR')"],
  E2007: [
    'test/cli/target-flags.test.ts',
    "expectCoded(io.stderr.text, 'E2007', '--max-errors', 'runs prune', 'user sync');",
  ],
  E2008: ['test/cli/error-codes.test.ts', "expectCoded(base.stderr.text, 'E2008', 'EXAMCTL_BASE_URL', '--base-url')"],
  E2100: ['test/cli/error-lines.test.ts', "expectCoded(first!, 'E2100', 'bad.json: ')"],
  E2101: ['test/cli/error-codes.test.ts', "toEqual(['E2101', 'E2101'])"],
  E2102: ['test/cli/error-codes.test.ts', "'E2102',"],
  E2110: ['test/cli/pin-withheld.test.ts', '/^examctl: E2110: \\S*r\\.csv:3: Pin holds "withheld" on lines 3, 4 /m'],
  E2111: [
    'test/durability/chosen-id.test.ts',
    "expectCoded(retry.stderr, 'E2111', 'r.csv:2: ', `run ${id} `, '--only-failed', `examctl runs resume ${id}`)",
  ],
  E2200: ['test/cli/error-codes.test.ts', "toEqual(['E2200', 'E2200'])"],
  E2201: ['test/cli/error-codes.test.ts', "toEqual(['E2201', 'E2201'])"],
  E2202: ['test/sync/later-run-resume.test.ts', "expectCoded(refused.stderr, 'E2202', 'user sync', newerRun);"],
  E2300: ['test/cli/error-codes.test.ts', "toEqual(['E2300', 'E2300'])"],
  E2301: ['test/cli/error-codes.test.ts', "toEqual(['E2301', 'E2301'])"],
  E2302: ['test/cli/error-codes.test.ts', "toEqual(['E2302', 'E2302'])"],
  E2400: ['test/cli/error-codes.test.ts', "toEqual(['E2400', 'E2400'])"],
  E2501: ['test/sync/new-or-existing.test.ts', "expectCoded(blind.stderr, 'E2501', '--only-new', 'users.ndjson')"],
  E2502: ['test/cli/error-codes.test.ts', "toEqual(['E2502', 'E2502'])"],
  E2503: ['test/cli/error-codes.test.ts', "toEqual(['E2503', 'E2503'])"],
  E2504: ['test/cli/error-codes.test.ts', "toEqual(['E2504', 'E2504'])"],
  E2505: ['test/cli/error-codes.test.ts', "'E2505',"],
  E2506: ['test/cli/error-codes.test.ts', "toEqual(['E2506', 'E2506'])"],
  E2507: ['test/sync/memory-recovery.test.ts', "expectCoded(run.stderr, 'E2507', `${run.file}:${lines}:`, reason);"],
  E2508: [
    'test/sync/restored-memory.test.ts',
    "expectCoded(refused.stderr.replace(/\\s+/g, ' '), 'E2508', `older than run ${run}`)",
  ],
  E2600: ['test/cli/plan-apply.test.ts', "expectCoded(edited.stderr, 'E2600', 'edited.json', 'checksum')"],
  E2601: [
    'test/cli/plan-apply.test.ts',
    "expectCoded(moved.stderr, 'E2601', 'plan.json', `local store ${join(dir, 'store')}`, made)",
  ],
  E2602: [
    'test/cli/plan-reapply.test.ts',
    "expectCoded(again.stderr, 'E2602', '(p.json)', `examctl runs resume ${run}`)",
  ],
  E3000: ['test/sync/full-disk-start.test.ts', "expectCoded(imported.stderr, 'E3000', 'users.ndjson', 'ENOSPC')"],
  E3001: ['test/remote/hostile-server.test.ts', "expect((failure as TransientTargetError).code).toBe('E3001')"],
  E3002: ['test/cli/error-codes.test.ts', "toEqual(['E3002', 'E3002'])"],
  E3003: ['test/remote/hostile-server.test.ts', "expect((failure as AnswerUnreadableError).code).toBe('E3003')"],
  E3010: ['test/remote/remote-run.test.ts', "toMatchObject({ exitCode: 3, code: 'E3010', kind: 'refused' })"],
  E3011: [
    'test/sync/state-service.test.ts',
    "expectCoded(refused.stderr, 'E3011', 'LOCK', '(401)', 'EXAMCTL_SYNC_USERNAME', 'EXAMCTL_SYNC_PASSWORD')",
  ],
  E3020: ['test/cli/commands.test.ts', "expectCoded(stderr, 'E3020', '4242')"],
  E3021: ['test/sync/memory-recovery.test.ts', "expectCoded(held.stderr, 'E3021', memory, `pid ${process.pid}`)"],
  E3030: ['test/cli/error-codes.test.ts', "toEqual(['E3030', 'E3030'])"],
  E3031: ['test/store/file-store.test.ts', "expect((stopped as StoreReplacedError).code).toBe('E3031')"],
  E3040: [
    'test/platform/report-full-disk.test.ts',
    "expectCoded(night3.stderr, 'E3040', 'out.xml', 'ENOSPC', 'not renamed')",
  ],
  E3050: ['test/runs/run-journal.test.ts', "expect((error as RunJournalWriteError).code).toBe('E3050')"],
  E3060: [
    'test/cli/input-changed-run.test.ts',
    "expectCoded(finished.stderr, 'E3060', `${file}:`, 'examctl runs resume ')",
  ],
  E7000: ['test/store/file-store.test.ts', "expect((used as InternalError).code).toBe('E7000')"],
  E7001: ['test/cli/commands.test.ts', "expectCoded(plain.stderr, 'E7001', 'boom', '--debug')"],
  E1300: ['test/cli/run-pipeline.test.ts', "expect(doc.error.code).toBe('E1300')"],
  E1301: ['test/remote/hostile-run.test.ts', "expect(doc.error?.code).toBe('E1301')"],
  E1302: ['test/human/command-prompts.test.ts', "expectCoded(session.stderr, 'E1302')"],
  E1410: [
    'test/durability/run-resume.test.ts',
    "expectCoded(ended.stderr, 'E1410', `examctl runs resume ${report.run}`)",
  ],
};

/**
 * The codes no test produces yet (issue 80): none now. The list only shrinks: a code of the
 * table without a producing line above fails here until a test produces it.
 */
const AWAITING: readonly ErrorCodeId[] = [];

describe('every run-ending code is produced by a test', () => {
  it.each(Object.entries(PRODUCED).filter(([, where]) => where !== null) as [ErrorCodeId, [string, string]][])(
    '%s: %s',
    (code, [file, line]) => {
      expect(line).toContain(code);
      expect(readFileSync(join(ROOT, file), 'utf8')).toContain(line);
    },
  );

  it('the codes awaiting a test are exactly those without a line', () => {
    expect(Object.keys(PRODUCED)).toEqual(Object.keys(ERROR_CODES));
    const without = Object.entries(PRODUCED)
      .filter(([, where]) => where === null)
      .map(([code]) => code);
    expect(without).toEqual(AWAITING);
  });
});
