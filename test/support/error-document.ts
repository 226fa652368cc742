import { expect } from 'vitest';

/**
 * With --json, a run that fails before any report (exit 2: usage or input file) still prints one
 * document on stdout: the error, and no items or summary (no half report).
 */
export function expectOnlyErrorDocument(stdout: string, exitCode: number): void {
  const document = JSON.parse(stdout) as { error?: { exitCode?: number }; items?: unknown };
  expect(document.error?.exitCode).toBe(exitCode);
  expect(document.items).toBeUndefined();
  expect(stdout.trim().split('\n')).toHaveLength(1);
}
