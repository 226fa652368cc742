/** A record's external id for the report, when it has a usable one (a non-blank string, or a number). */
export function idOf(fields: Record<string, unknown>, key: string): string | null {
  const value = fields[key];
  return typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' ? String(value) : null;
}
