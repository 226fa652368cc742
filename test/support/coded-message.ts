import { expect } from 'vitest';

/**
 * A message that ends a run: stderr holds `examctl: CODE: ` and, from there on, each fact the message
 * carries (a path, a flag, an id, a count). The code and the facts are what a test pins, not the
 * sentence around them (docs/errors.md gives each code's cause and fix).
 */
export function expectCoded(stderr: string, code: string, ...facts: readonly (string | number)[]): void {
  const at = stderr.indexOf(`examctl: ${code}: `);
  expect(at, `no "examctl: ${code}: " in:\n${stderr}`).toBeGreaterThanOrEqual(0);
  const message = stderr.slice(at);
  for (const fact of facts) expect(message).toContain(String(fact));
}
