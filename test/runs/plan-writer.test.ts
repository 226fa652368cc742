import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
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

  it("a plan edited and its checksum written again: an item out of its place or counts that are not its items' are refused, E2600", () =>
    withTempDir(async (dir) => {
      const path = join(dir, 'plan.json');
      const writer = await PlanWriter.open(path, HEADER);
      const request = { ExternalId: 'u-1', LastName: 'Ng' };
      const item = { n: 0, id: 'u-1', source: { file: 'users.csv', line: 2 }, action: 'update' as const };
      await writer.add({ ...item, digest: planDigest(request) }, JSON.stringify(request), {});
      await writer.add({ n: 1, id: 'u-2', source: { file: 'users.csv', line: 3 }, action: 'unchanged' }, undefined, {});
      await writer.finish({ update: 1, unchanged: 1 }, []);
      const text = await readFile(path, 'utf8');
      expect((await readPlan(path)).items).toHaveLength(2);
      // What a person could do by hand: the checksum is no signature, so it is written again.
      const edited = async (body: string) => {
        const kept = body.slice(0, body.lastIndexOf('\n  "checksum"'));
        const sum = createHash('sha256').update(kept).digest('hex');
        await writeFile(path, `${kept}\n  "checksum": "sha256:${sum}"\n}\n`);
        return readPlan(path).then(
          () => undefined,
          (error: { code?: string; message: string }) => [error.code, error.message],
        );
      };
      expect(await edited(text)).toBeUndefined();
      const dropped = text.replace(/\n {4}\{"n":0,[^\n]*/, '');
      expect(await edited(dropped)).toEqual(['E2600', expect.stringMatching(/item 1 \(u-2\) is at place 0/)]);
      const relabelled = text.replace('"action":"update"', '"action":"unchanged"');
      expect(await edited(relabelled)).toEqual(['E2600', expect.stringMatching(/its counts .* are not its items'/)]);
    }));
});
