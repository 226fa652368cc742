export type RecordedValue = string | number | boolean | string[];

/** A URL without user info, query or fragment: the parts where a secret can hide. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    // Not a URL: keep only what cannot be a credential-bearing part.
    return text.replace(/\/\/[^/@]*@/, '//').replace(/[?#].*$/, '');
  }
}

/**
 * The options a run journal keeps (docs/runs.md, "What a journal keeps"): only those `names`
 * gives (cli/command-declaration.ts `keptOptionNames`), an allow-list, with plain values only.
 */
export function recordedOptions(options: Readonly<Record<string, unknown>>, names: readonly string[]): Record<string, RecordedValue> {
  const kept: Record<string, RecordedValue> = {};
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(options, name)) continue;
    const value = options[name];
    if (typeof value === 'string') kept[name] = name === 'baseUrl' ? redactUrl(value) : value;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') kept[name] = value;
    else if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) kept[name] = [...(value as string[])];
  }
  return kept;
}
