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
 * The options a run journal keeps, so `runs resume` continues with the same ones: those `names`
 * gives (the command's declaration marks them, cli/command-declaration.ts `keptOptionNames`), an
 * allow-list, with plain values only (strings, finite numbers, booleans, lists of strings). A
 * base URL loses its user info, query and fragment. `tokenFile` is a path, not a token; the
 * token itself is read again on resume. A PIN is never named: the pipeline records its SHA-256.
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
