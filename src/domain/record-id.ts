/** A record's external id for the report, when it has a usable one (a non-blank string, or a number). */
export function idOf(fields: Record<string, unknown>, key: string): string | null {
  const value = fields[key];
  return typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' ? String(value) : null;
}

const RUN_ID = /^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/;

export function isRunId(text: string): boolean {
  return RUN_ID.test(text);
}
