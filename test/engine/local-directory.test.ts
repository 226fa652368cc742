import { describe, expect, it } from 'vitest';
import { worldDirectory } from '../../src/engine/engine.js';
import { demoWorld } from './helpers.js';

describe('local directory for prompts', () => {
  it('lists the roles that take exams first, so a hurried Enter never picks an administrator role', () => {
    const world = demoWorld();
    const titles = worldDirectory(world).roleTitles();
    const participate = world.Roles.filter((role) => role.Participate).map((role) => role.Title);
    expect(participate.length).toBeGreaterThan(0);
    expect(titles.slice(0, participate.length)).toEqual(participate);
    expect([...titles].sort()).toEqual(world.Roles.map((role) => role.Title).sort());
  });
});
