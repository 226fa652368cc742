import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  mayHoldSecret,
  planDigest,
  PlanWriter,
  PLAN_FORMAT,
  PLAN_VERSION,
  readPlan,
  shownRequest,
  type PlanHeader,
} from '../../src/runs/plan-document.js';
import { withTempDir } from '../support/temp-dir.js';

/** The plan file as PlanWriter writes it (docs/plan.md, "The plan file"): one item a line, read back whole. */

const HEADER: PlanHeader = {
  format: PLAN_FORMAT,
  version: PLAN_VERSION,
  id: '0123456789abcdef',
  created: '2026-11-21T10:00:00.000Z',
  examctl: 'test',
  command: 'user sync',
  target: { kind: 'local', store: '/srv/store' },
  cwd: '/srv',
  options: {},
  inputs: [],
  store: null,
  memory: 'none',
};

describe('PlanWriter', () => {
  it("writes each item's fields in order, its request as given, and reads back checked", () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'plan.json');
      const writer = await PlanWriter.open(path, HEADER);
      const request = { ExternalId: 'u-1', LastName: 'Ng', Labels: ['"Password": x'] };
      const json = JSON.stringify(request);
      expect(mayHoldSecret(json)).toBe(false);
      await writer.add(
        { n: 0, id: 'u-1', source: { file: 'users.csv', line: 2 }, action: 'update', digest: planDigest(request) },
        json,
        { changes: [{ field: 'LastName', known: true, before: 'Ong', after: 'Ng' }] },
      );
      await writer.add({ n: 1, id: 'u-2', source: { file: 'users.csv', line: 3 }, action: 'invalid' }, undefined, {});
      await writer.finish({ update: 1, invalid: 1 }, []);
      const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line.startsWith('    {'));
      expect(lines).toHaveLength(2);
      expect(Object.keys(JSON.parse(lines[0]!.replace(/,$/, '')))).toEqual([
        'n',
        'id',
        'source',
        'action',
        'digest',
        'request',
        'changes',
      ]);
      const plan = await readPlan(path);
      expect(plan.items[0]!.request).toEqual(request);
      expect(plan.items[1]).toEqual({ n: 1, id: 'u-2', source: { file: 'users.csv', line: 3 }, action: 'invalid' });
    }));

  it('a request holding a password or a PIN is the one shownRequest withholds', () => {
    const request = { ExternalId: 'u-1', Password: 'secret-1', Candidates: [{ PIN: '1234' }] };
    expect(mayHoldSecret(JSON.stringify(request))).toBe(true);
    expect(mayHoldSecret(JSON.stringify({ Schedule: { PIN: '1' } }))).toBe(true);
    expect(JSON.stringify(shownRequest(request))).not.toMatch(/secret-1|1234/);
  });
});
