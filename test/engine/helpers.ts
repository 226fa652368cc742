import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseWorld, type World } from '../../src/domain/world.js';
import { createLocalEngine, type LocalEngine } from '../../src/engine/engine.js';
import { exportWorldText, worldToChanges } from '../../src/engine/world-io.js';
import type { StoreState } from '../../src/engine/store/contract.js';
import { MemoryStore } from './memory-store.js';

/** Tests pin the engine clock (docs/cli-contract.md, "Local engine clock": EXAMCTL_NOW). The demo world is dated around it. */
/** The world `local export` writes for `state`, parsed. */
export function exportWorld(state: StoreState): World {
  return JSON.parse([...exportWorldText(state)].join('')) as World;
}

export const NOW = new Date('2026-11-21T12:00:00.000Z');

const WORLD_PATH = fileURLToPath(new URL('../../fixtures/world.json', import.meta.url));

export function demoWorld(): World {
  const parsed = parseWorld(JSON.parse(readFileSync(WORLD_PATH, 'utf8')));
  if (!parsed.ok) throw new Error(`fixtures/world.json is invalid:\n${parsed.errors.join('\n')}`);
  return parsed.world;
}

export function demoEngine(edit?: (world: World) => void): { engine: LocalEngine; store: MemoryStore; world: World } {
  const world = demoWorld();
  edit?.(world);
  const store = new MemoryStore(worldToChanges(world));
  return { engine: createLocalEngine({ store, now: () => NOW }), store, world };
}

export function codes(errors: unknown): (number | null)[] {
  return (errors as { Code: number | null }[]).map((e) => e.Code);
}

export function messages(errors: unknown): string {
  return (errors as { Message: string }[]).map((e) => e.Message).join(' | ');
}

/** A valid schedule request on the demo world (owner from the settings, future start). */
export function scheduleRequest(
  overrides: {
    Workflow?: string;
    Upsert?: boolean;
    Schedule?: Record<string, unknown>;
    Candidates?: Record<string, unknown>[];
  } = {},
): Record<string, unknown> {
  return {
    ...(overrides.Workflow === undefined ? {} : { Workflow: overrides.Workflow }),
    ...(overrides.Upsert === undefined ? {} : { Upsert: overrides.Upsert }),
    Schedule: {
      ScheduleExtId: 'S-NEW-1',
      AssessmentExtId: 'A-MATH-1',
      StartDateTime: '2026-12-01T09:00:00.000Z',
      GroupExtId: 'H-NORTH',
      GroupName: 'North campus',
      ...overrides.Schedule,
    },
    Candidates: overrides.Candidates ?? [
      { CandidateExtId: 'c-2001', FirstName: 'Gil', LastName: 'Ramos', Email: 'gil.ramos@students.example.test' },
    ],
  };
}

export function candidate(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    CandidateExtId: id,
    FirstName: 'First',
    LastName: `Last ${id}`,
    Email: `${id}@students.example.test`,
    ...extra,
  };
}
