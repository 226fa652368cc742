/**
 * The secrets examctl holds or can see (a token from any source, every profile's token, a state
 * service's password), remembered as they are read, and the one test `quotedValue` (problem.ts)
 * puts every text through before a message quotes it: so no text quoted from an input file (a
 * header, a cell, a key) shows one (docs/security.md, "A hostile file").
 */
const secrets = new Set<string>();

/** The shortest part of a secret looked for in quoted text (shorter words are too common to hide). */
const SHORTEST_PART = 4;

/** Remembers a secret (and its words: `EAPI <token>` holds the token). */
export function rememberSecret(secret: string | undefined): void {
  if (secret === undefined) return;
  for (const part of [secret, ...secret.split(/[\s,;]+/)])
    if (part.trim().length >= SHORTEST_PART) secrets.add(part.trim());
}

/** Credential shapes: a scheme and a value (`EAPI x`, `Bearer x`), a `name=value`, a key's marker. */
const CREDENTIAL = /^(?:(?:EAPI|Bearer|Basic|Token|ApiKey)\s+\S|[\w.-]+=\S|-----BEGIN |(?:ghp|gho|xox[bp]|sk|pk)[-_])/i;

/** Whether text quoted from an input holds a secret examctl knows, or has a credential's shape. */
export function looksLikeCredential(text: string): boolean {
  const trimmed = text.trim();
  if (CREDENTIAL.test(trimmed)) return true;
  return holdsKnownSecret(trimmed);
}

/** Whether text holds a secret examctl holds or sees (not a mere shape: a cell echoed as data, `a=b`, is kept). */
export function holdsKnownSecret(text: string): boolean {
  for (const secret of secrets) if (text.includes(secret)) return true;
  return false;
}

/** Text that may be a secret, as a message says it: what it is and its length, never its characters. */
export function describedSecret(text: string, what: string): string {
  return `${what} of ${text.length.toLocaleString('en-US')} characters that looks like a credential (not shown)`;
}
