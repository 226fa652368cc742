/** Small shared pieces for the human tables: colour policy, cell sanitising and the cli-table3 style. */
import type Table from 'cli-table3';
import { terminalLine } from '../formats/terminal-text.js';
import { styleText } from 'node:util';
import type { Env } from '../system/env-values.js';

export type Colour = 'green' | 'red' | 'yellow' | 'gray' | 'cyan' | 'bold';

/** node's own ANSI codes; whether to colour is decided here (colorEnabled), never by node's look at process.stdout. */
export function paint(text: string, colour: Colour, enabled: boolean): string {
  return enabled ? styleText(colour, text, { validateStream: false }) : text;
}

/** Colour only for a terminal and never against NO_COLOR (https://no-color.org); FORCE_COLOR=0 off, any other on. */
export function colorEnabled(options: { isTTY: boolean | undefined; env: Env }): boolean {
  const { env } = options;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return options.isTTY === true;
}

/** A table for stdout: fitted to its width and coloured only on a terminal (`show X | less` gets neither). */
export function stdoutTableStyle(out: { stdoutIsTTY?: boolean; stdoutColumns?: number; env: Env }) {
  return {
    color: colorEnabled({ isTTY: out.stdoutIsTTY, env: out.env }),
    width: out.stdoutIsTTY ? out.stdoutColumns : undefined,
  };
}

/** A UTF-8 locale (box drawing shows), judged as a terminal does: none set is C; Windows: yes. */
export function utf8Locale(env: Env, platform = process.platform): boolean {
  return platform === 'win32' || /utf-?8/i.test(env.LC_ALL || env.LC_CTYPE || env.LANG || 'C');
}

/** A value from the service made safe and readable for one table cell. */
export function displayText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((entry) => displayText(entry)).join(', ');
  return terminalLine(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/**
 * Table options: compact (no rule between rows). Colour is applied by `head`, never by cli-table3's own
 * colour library, which guesses from process.stdout rather than the stream written to.
 */
export function tableOptions(extra: Table.TableConstructorOptions = {}): Table.TableConstructorOptions {
  return { ...extra, style: { head: [], border: [], compact: true } };
}

export function head(names: readonly string[], color: boolean): string[] {
  return names.map((name) => paint(name, 'cyan', color));
}
