import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { restoredStorePlace } from '../support/restored-store.js';
import { expectCoded } from '../support/coded-message.js';
import { lineWith } from '../support/facts.js';

/**
 * The plan of a night after the store was restored (docs/plan.md, "The plan file"; docs/sync.md, "Where the store stands"):
 * a row the file did not change, sent again only because the restore undid what the memory records, carries the
 * real run's words in every view of the plan (text, --report CSV and page, the plan file), and the run that applies
 * the plan says the same. On the local store and through `local serve`.
 */

const place = restoredStorePlace('examctl-plan-sent-again-');
const IDS = ['k-1', 'k-2', 'k-3'];

/** The night's file: k-1 and k-2 with FirstName `value`, k-3 with `third`. */
async function night(value: string, third = value): Promise<void> {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of IDS) lines.push(`${id},${id === 'k-3' ? third : value},Last,${id}@example.test,n-${id},Candidate`);
  await writeFile(join(place.dir, 'users.csv'), `${lines.join('\n')}\n`);
}

async function sync(target: string[], more: string[] = []) {
  const done = await examctl(
    ['--json', 'user', 'sync', '--changed-only', '--file', 'users.csv', ...target, ...more],
    place.dir,
    place.env,
  );
  expect(done.code, done.stderr).toBe(0);
  const report = JSON.parse(done.stdout) as { run: string; items: { id: string; action?: string; note?: string }[] };
  return { ...report, stderr: done.stderr };
}

const notes = (items: { id: string | null; note?: string }[]) =>
  Object.fromEntries(items.map((item) => [item.id, item.note ?? '']));

async function restoredNight(target: () => string[]): Promise<void> {
  await night('One');
  await sync(target());
  await place.copy();
  await night('Two');
  const two = await sync(target());
  await place.restore();
  // Tonight: k-1 and k-2 as night Two left them (the restore undid it), k-3 changed by the file.
  await night('Two', 'Three');
  const why = `sent again: run ${two.run} acknowledged it, and the store was restored to before that`;
  const want = { 'k-1': why, 'k-2': why, 'k-3': '' };

  const text = await examctl(
    ['user', 'sync', '--changed-only', '--file', 'users.csv', '--dry-run', '--report', 'plan.csv', ...target()],
    place.dir,
    place.env,
  );
  expect(text.code, text.stderr).toBe(0);
  const summary = `${text.stdout}${text.stderr}`;
  expect(summary).toMatch(new RegExp(`~ k-1( \\(FirstName\\))?: ${why}`));
  expect(summary).toMatch(/~ k-3( \(FirstName\))?\n/);
  const csv = (await readFile(join(place.dir, 'plan.csv'), 'utf8')).trim().split('\n');
  expect(csv.filter((line) => line.includes(`,"${why}",`)).map((line) => line.split(',')[0])).toEqual(['k-1', 'k-2']);
  expect(csv.find((line) => line.startsWith('k-3,'))).not.toContain('sent again');

  const dry = await sync(target(), ['--dry-run', '--plan-out', 'tonight.plan.json', '--report', 'plan.html']);
  expect(notes(dry.items)).toEqual(want);
  const plan = JSON.parse(await readFile(join(place.dir, 'tonight.plan.json'), 'utf8')) as {
    items: { id: string; action: string; note?: string }[];
  };
  expect(plan.items.map((item) => item.action)).toEqual(['update', 'update', 'update']);
  expect(notes(plan.items)).toEqual(want);
  // The page holds the note with each row's before and after (its rows are data the page's script shows).
  const page = await readFile(join(place.dir, 'plan.html'), 'utf8');
  expect(page.split(why)).toHaveLength(3);

  // The run that applies the plan says what the plan said: the same words on the same rows.
  const applied = await examctl(['--json', 'apply', 'tonight.plan.json', ...target()], place.dir, place.env);
  expect(applied.code, applied.stderr).toBe(0);
  const report = JSON.parse(applied.stdout) as { items: { id: string; action?: string; note?: string }[] };
  expect(notes(report.items)).toEqual(want);
  expect(report.items.map((item) => item.action)).toEqual(['updated', 'updated', 'updated']);
}

const local = () => ['--store', place.store()];
const served = () => ['--target', 'remote', '--base-url', `http://127.0.0.1:${place.port}`, '--yes'];

describe('the plan of a night after a restore says why a row the file did not change goes again', () => {
  it('on the local store', () => restoredNight(local));

  it('through local serve', async () => {
    await place.serve();
    await restoredNight(served);
    // A served store that does not answer its head stops the dry run: its plan could not say what the store lost.
    await place.close();
    const down = await examctl(
      ['user', 'sync', '--changed-only', '--file', 'users.csv', '--dry-run', ...served()],
      place.dir,
      place.env,
    );
    expect(down.code, down.stderr).toBe(3);
    expectCoded(down.stderr, 'E3002', `127.0.0.1:${place.port}`, '/examctl/store');
  });
});

/** A joiner of night Two, the store restored to before it: the target does not hold it, whatever the memory says. */
async function undoneJoiner(target: () => string[], planned: string): Promise<void> {
  await night('One');
  await sync(target());
  await place.copy();
  const users = await readFile(join(place.dir, 'users.csv'), 'utf8');
  await writeFile(join(place.dir, 'users.csv'), `${users}k-4,One,Last,k-4@example.test,n-k-4,Candidate\n`);
  expect((await sync(target())).items.find((item) => item.id === 'k-4')?.action).toBe('created');
  await place.restore();
  await sync(target(), ['--dry-run', '--plan-out', 'tonight.plan.json']);
  const plan = JSON.parse(await readFile(join(place.dir, 'tonight.plan.json'), 'utf8')) as {
    items: { id: string; action: string; changes?: unknown }[];
  };
  const joiner = plan.items.find((item) => item.id === 'k-4');
  expect(joiner?.action).toBe(planned);
  expect(joiner?.changes).toBeUndefined();
  const applied = await examctl(['--json', 'apply', 'tonight.plan.json', ...target()], place.dir, place.env);
  expect(applied.code, applied.stderr).toBe(0);
  const report = JSON.parse(applied.stdout) as { items: { id: string; action?: string }[] };
  expect(report.items.find((item) => item.id === 'k-4')?.action).toBe('created');
}

describe('the plan of a user whose creation a restore undid is no update', () => {
  it('on the local store: a create, as the store says', () => undoneJoiner(local, 'create'));

  it('through local serve: a send (the service may not hold it), never an update of fields it does not know', async () => {
    await place.serve();
    await undoneJoiner(served, 'send');
  });
});

describe('a dry run through local serve without the token', () => {
  it('says it did not ask where the store stands, so a restore there is not in its plan', async () => {
    await place.serve();
    await night('One');
    await sync(served());
    await place.copy();
    await night('Two');
    await sync(served());
    await place.restore();
    const { EXAMCTL_TOKEN: _token, ...tokenless } = place.env;
    const dry = await examctl(
      ['user', 'sync', '--changed-only', '--file', 'users.csv', '--dry-run', ...served()],
      place.dir,
      tokenless,
    );
    expect(dry.code, dry.stderr).toBe(0);
    // Planned from the memory alone: the rows the restore undid are not among those it sends.
    expect(dry.stderr).toContain('plan: 3 unchanged');
    expect(lineWith(dry.stderr, 'note:', `127.0.0.1:${place.port}`, 'without a token', 'restore')).toBeTruthy();
  });
});
