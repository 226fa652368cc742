import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, type Finished } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';

/**
 * The nights of issue 48 (docs/sync.md, "When the memory is lost"): two exports to one target
 * served by `local serve`, staff from HR and students from the SIS, each its own nightly step with
 * its own --population, over six nights of joiners, movers (a link changed, a flag revoked or
 * given, a user moving from one export to the other) and leavers. The platform's state at the
 * end, read from the served store, is what a run whose memory was lost and recovered must reach.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
export const POPULATIONS = ['staff', 'students'] as const;
export type Population = (typeof POPULATIONS)[number];

interface Row {
  last: string;
  hierarchies: string;
}

/** Each export's rows on night `n` (1 to 6): every night's changes applied in turn. */
export function nightRows(n: number): Record<Population, Map<string, Row>> {
  const staff = new Map<string, Row>();
  const students = new Map<string, Row>();
  for (let i = 0; i < 8; i++)
    staff.set(`st-${i}`, { last: `Staff ${i}`, hierarchies: i === 1 ? 'H-A:coordinator' : 'H-A' });
  for (let i = 0; i < 20; i++)
    students.set(`pu-${i}`, { last: `Student ${i}`, hierarchies: i % 2 === 1 ? 'H-B' : 'H-C' });
  const set = (map: Map<string, Row>, id: string, change: Partial<Row>): void =>
    void map.set(id, { ...(map.get(id) ?? { last: `Joiner ${id}`, hierarchies: '' }), ...change });
  if (n >= 2) {
    set(staff, 'st-8', { hierarchies: 'H-A' });
    set(students, 'pu-20', { hierarchies: 'H-B' });
    set(students, 'pu-21', { hierarchies: 'H-C' });
    set(students, 'pu-3', { hierarchies: 'H-C' });
    set(staff, 'st-1', { hierarchies: 'H-A' });
  }
  if (n >= 3) {
    students.delete('pu-5');
    staff.delete('st-2');
    set(students, 'pu-6', { hierarchies: 'H-D' });
  }
  if (n >= 4) {
    set(staff, 'pu-7', { ...students.get('pu-7'), hierarchies: 'H-A' });
    students.delete('pu-7');
    set(staff, 'st-3', { last: 'Renamed 3' });
  }
  if (n >= 5) {
    set(students, 'pu-22', { hierarchies: 'H-B' });
    students.delete('pu-8');
    set(staff, 'st-4', { hierarchies: 'H-D' });
  }
  // A joiner of night 3 alone: night 4 disables it only if the memory knows night 3 created it.
  if (n === 3) set(students, 'pu-24', { hierarchies: 'H-B' });
  if (n >= 6) {
    students.delete('pu-9');
    staff.delete('st-5');
    set(students, 'pu-10', { hierarchies: 'H-D' });
    set(staff, 'st-6', { hierarchies: 'H-A:coordinator' });
    set(students, 'pu-23', { hierarchies: 'H-C' });
    set(staff, 'pu-11', { ...students.get('pu-11'), hierarchies: 'H-A:reports' });
    students.delete('pu-11');
  }
  return { staff, students };
}

/** Writes night `n`'s two exports as `<dir>/<population>-<n>.csv` (each night's input is kept: `synced adopt` reads it). */
export function writeNight(dir: string, n: number): Record<Population, string> {
  const rows = nightRows(n);
  const files = {} as Record<Population, string>;
  for (const population of POPULATIONS) {
    const lines = [
      HEADER,
      ...[...rows[population]].map(
        ([id, row]) => `${id},First,${row.last},${id}@example.test,name-${id},Candidate,${row.hierarchies}`,
      ),
    ];
    files[population] = join(dir, `${population}-${n}.csv`);
    writeFileSync(files[population], `${lines.join('\n')}\n`);
  }
  return files;
}

/**
 * The nightly step's flags (docs/ci.md): --require-memory from the second night on. Night 4's
 * students leave out pu-24, night 3's joiner alone, who really left: a leaver that recent is
 * refused as stale input unless --allow-disable-recent (docs/sync.md, "Stale input").
 */
export function nightly(population: Population, n: number): string[] {
  const recent = n === 4 && population === 'students' ? ['--allow-disable-recent'] : [];
  return [
    '--changed-only',
    '--disable-missing',
    '--prune-memberships',
    '--population',
    population,
    ...(n > 1 ? ['--require-memory'] : []),
    ...recent,
    '--yes',
    '--json',
  ];
}

/** A store for `local serve` with the demo world and hierarchies H-A..H-D (and the demo token). */
export async function initServedStore(dir: string, store: string): Promise<void> {
  const world = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'world.json'), 'utf8')) as { Hierarchies: unknown[] };
  for (const id of ['H-A', 'H-B', 'H-C', 'H-D'])
    world.Hierarchies.push({ ExternalId: id, Title: id, Parent: 'root', Active: true });
  writeFileSync(join(dir, 'world.json'), JSON.stringify(world));
  const made = await examctl(['local', 'init', '--store', store, '--seed', 'world.json'], dir);
  expect(made.code, made.stderr).toBe(0);
}

/** `local serve` over `store`, on `port` (0: any; the same port again keeps the target's identity, hence its memory). */
export function serve(store: string, port = 0): Promise<LocalServer> {
  return serveLocalStore({ storeDir: store, port, now: () => new Date('2026-11-21T10:00:00Z') });
}

/** What the platform holds of the nights' users: names, login, and each hierarchy link with its flags. */
export async function platformState(dir: string, store: string): Promise<Record<string, string>> {
  const exported = await examctl(['local', 'export', '--store', store], dir);
  expect(exported.code, exported.stderr).toBe(0);
  const users = (
    JSON.parse(exported.stdout) as {
      Users: {
        ExternalId: string;
        LastName: string;
        DisableLogin?: boolean;
        Hierarchies?: Record<string, unknown>[];
      }[];
    }
  ).Users;
  const state: Record<string, string> = {};
  for (const user of users) {
    if (!/^(st|pu)-/.test(user.ExternalId)) continue;
    const links = (user.Hierarchies ?? [])
      .map(
        (link) =>
          `${String(link.ExternalId)}${Object.entries(link)
            .filter(([key, value]) => key !== 'ExternalId' && value === true)
            .map(([key]) => `:${key}`)
            .join('')}`,
      )
      .sort();
    state[user.ExternalId] =
      `${user.LastName}|${user.DisableLogin === true ? 'disabled' : 'enabled'}|${links.join(',')}`;
  }
  return state;
}

/** A copy of the served store and the sync directory after night 5: each way back starts from the same platform. */
export function snapshot(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true });
}

/** The JSON document of a night (or the refusal's). */
export function documentOf(run: Finished): {
  syncMemory?: { found: boolean; population: string | null; populationFound: boolean; remembered: number };
  items: { id: string; action?: string }[];
  error?: { message: string };
} {
  return JSON.parse(run.stdout) as ReturnType<typeof documentOf>;
}
