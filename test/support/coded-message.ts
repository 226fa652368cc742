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

/**
 * The report line of one item's problem (`file:line [id] field code message`): stderr holds it, and
 * the test then checks the facts on it (a run id, a flag) rather than the sentence.
 */
export function itemLine(text: string, id: string, field: string): string {
  const line = text.split('\n').find((each) => each.includes(`[${id}] ${field} `));
  expect(line, `no line for [${id}] ${field} in:\n${text}`).toBeDefined();
  return line!;
}

/**
 * A `doctor` check that failed: its row (`FAIL  check  CODE: ...`) holds the code and, after it,
 * each fact given (a path, a variable, a status).
 */
export function failedCheck(stdout: string, check: string, code: string, ...facts: readonly (string | number)[]): void {
  const row = stdout.split('\n').find((line) => new RegExp(`^FAIL\\s+${check}\\s+${code}: `).test(line));
  expect(row, `no "FAIL ${check} ${code}" row in:\n${stdout}`).toBeDefined();
  for (const fact of facts) expect(row).toContain(String(fact));
}
