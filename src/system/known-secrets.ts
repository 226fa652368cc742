/**
 * The secrets examctl holds or can see (a token from any source, a state service's password),
 * remembered as they are read, so that no text quoted from an input file shows one (issue 81:
 * a token file given by mistake as --file printed the token in the header message).
 */
const secrets = new Set<string>();

/** Remembers a secret (and its words: `EAPI <token>` holds the token). */
export function rememberSecret(secret: string | undefined): void {
  if (secret === undefined) return;
  for (const part of [secret, ...secret.split(/[\s,;]+/)]) if (part.trim().length >= 4) secrets.add(part.trim());
}

/** Credential shapes: a scheme and a value (`EAPI x`, `Bearer x`), a `name=value`, a key's marker. */
const CREDENTIAL = /^(?:(?:EAPI|Bearer|Basic|Token|ApiKey)\s+\S|[\w.-]+=\S|-----BEGIN |(?:ghp|gho|xox[bp]|sk|pk)[-_])/i;

/** Whether text quoted from an input (a header cell, a cell, a key) holds a secret examctl knows, or has a credential's shape. */
export function looksLikeCredential(text: string): boolean {
  const trimmed = text.trim();
  if (CREDENTIAL.test(trimmed)) return true;
  for (const secret of secrets) if (trimmed.includes(secret)) return true;
  return false;
}

/** The text as a message may show it: quoted by `quote`, or described when it may be a secret. */
export function shownOrDescribed(text: string, what: string, quote: (text: string) => string): string {
  if (!looksLikeCredential(text)) return quote(text);
  return `${what} of ${text.length.toLocaleString('en-US')} characters that looks like a credential (not shown)`;
}
