import { expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from './helpers.js';
import { withTempDir } from '../support/temp-dir.js';

/** A 16-character id of the service's form (a-z, 0-9), as examctl or the local engine chooses one. */
const CHOSEN = /\b[a-z0-9]{16}\b/g;

interface PlanItem {
  id: string | null;
  action: string;
  request?: Record<string, unknown>;
}

/** A dry run with --plan-out, then apply: what the dry run said and planned, and the ids apply's report names. */
async function planThenApply(dir: string, args: string[]) {
  const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
  const init = testDeps(dir, {}, env);
  expect(await runCli(['local', 'init'], init.deps), init.stderr.text).toBe(0);
  const dry = testDeps(dir, {}, env);
  expect(await runCli([...args, '--dry-run', '--plan-out', 'p.json', '--no-input'], dry.deps), dry.stderr.text).toBe(0);
  const plan = JSON.parse(readFileSync(join(dir, 'p.json'), 'utf8')) as { id: string; items: PlanItem[] };
  const applied = testDeps(dir, {}, env);
  expect(await runCli(['apply', 'p.json', '--yes', '--report', 'r.json'], applied.deps), applied.stderr.text).toBe(0);
  const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { items: { id: string | null }[] };
  const dryText = dry.stderr.text.replaceAll(plan.id, '');
  return { plan, dryText, made: report.items.map((item) => item.id) };
}

/** The tester's case (a plan naming one id, apply creating another): the local dry run names no id it does not know. */
it('collection add without an ExternalId: the local plan and dry run name no id; apply creates one', () =>
  withTempDir(async (dir) => {
    const { plan, dryText, made } = await planThenApply(dir, ['collection', 'add', '--title', 'Chem 2027']);
    expect(plan.items.map((item) => [item.id, item.action])).toEqual([[null, 'create']]);
    expect(plan.items[0]!.request).not.toHaveProperty('ExternalId');
    expect(dryText.match(CHOSEN)).toBeNull();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^[a-z0-9]{16}$/);
  }));

it('collection add with --external-id: the plan names it, and apply creates that one', () =>
  withTempDir(async (dir) => {
    const { plan, made } = await planThenApply(dir, [
      'collection',
      'add',
      '--title',
      'Chem',
      '--external-id',
      'chem27',
    ]);
    expect(plan.items.map((item) => item.id)).toEqual(['chem27']);
    expect(made).toEqual(['chem27']);
  }));

it('schedule push without a ScheduleExtId: the local plan and dry run name no id; apply creates one', () =>
  withTempDir(async (dir) => {
    const rows = readFileSync(resolve(__dirname, '../../fixtures/sittings.csv'), 'utf8').trimEnd().split('\n');
    // The first schedule's rows, without its id.
    const first = rows.filter((row, n) => n === 0 || row.startsWith('S-MATH1-DEC,'));
    writeFileSync(
      join(dir, 's.csv'),
      `${first.map((row, n) => (n === 0 ? row : row.replace('S-MATH1-DEC', ''))).join('\n')}\n`,
    );
    const { plan, dryText, made } = await planThenApply(dir, ['schedule', 'push', '--file', 's.csv']);
    expect(plan.items.map((item) => [item.id, item.action])).toEqual([[null, 'create']]);
    expect(dryText.match(CHOSEN)).toBeNull();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^[a-z0-9]{16}$/);
  }));
