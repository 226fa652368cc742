import { redactUrl } from '../domain/problem.js';
export type RecordedValue = string | number | boolean | string[];

/** The flag of an option's attribute name: `changedOnly` -> `--changed-only`. */
export const flagOf = (name: string): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The options a journal keeps (docs/runs.md, "What a journal keeps"): an allow-list (`names`), plain values only. */
export function recordedOptions(
  options: Readonly<Record<string, unknown>>,
  names: readonly string[],
): Record<string, RecordedValue> {
  const kept: Record<string, RecordedValue> = {};
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(options, name)) continue;
    const value = options[name];
    if (typeof value === 'string') kept[name] = name === 'baseUrl' ? redactUrl(value) : value;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') kept[name] = value;
    else if (Array.isArray(value) && value.every((entry) => typeof entry === 'string'))
      kept[name] = [...(value as string[])];
  }
  return kept;
}
