/**
 * The options a run journal keeps, so `runs resume` can continue with the same ones. An
 * allow-list, not a deny-list: an option not named here (a new one, a token, a password) is
 * never written. Values are kept only when they are plain strings, numbers, booleans or lists
 * of strings. `tokenFile` is a path, not a token; the token itself is read again on resume.
 * `pin` is not: candidates type it to start their exam. The pipeline records its SHA-256
 * (`pinSha256`) instead, and `runs resume` asks for --pin again and refuses a different one.
 */
export const RECORDED_OPTIONS: readonly string[] = [
  // global
  'target',
  'store',
  'baseUrl',
  'tokenFile',
  'profile',
  'report',
  'concurrency',
  'rate',
  'maxErrors',
  'allowInsecureHttp',
  // kept so a resume on the same target needs no second --yes (CI recovery is one command)
  'yes',
  // input
  'file',
  'ignoreUnknownColumns',
  'onlyFailed',
  'sheet',
  'timezone',
  // how the export is read (docs/input-formats.md, "Mapping an export"); --set refuses secrets
  'map',
  'mapFile',
  'set',
  'dateFormat',
  // the nightly sync (docs/sync.md)
  'changedOnly',
  'disableMissing',
  'maxDisable',
  'pruneMemberships',
  'maxPrune',
  'population',
  'syncDir',
  'encoding',
  // schedule push
  'schedule',
  'workflow',
  'upsert',
  'scheduleId',
  'assessment',
  'title',
  'start',
  'end',
  'group',
  'groupName',
  'scheduleGroup',
  'scheduleGroupName',
  'owner',
  'proctoring',
  'proctoringTemplate',
  'lockOnConnectionLoss',
  'keycode',
  'autoCleanup',
  'cleanupNoticePeriod',
  // collection add
  'externalId',
  'taxonomy',
  'repository',
  // invigilators remove
  'scheduleExtId',
  'userExtIds',
];

const allowed = new Set(RECORDED_OPTIONS);

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

/** The allow-listed options with plain values, in a fresh object. */
export function recordedOptions(options: Readonly<Record<string, unknown>>): Record<string, RecordedValue> {
  const kept: Record<string, RecordedValue> = {};
  for (const name of RECORDED_OPTIONS) {
    if (!Object.prototype.hasOwnProperty.call(options, name)) continue;
    const value = options[name];
    if (typeof value === 'string') kept[name] = name === 'baseUrl' ? redactUrl(value) : value;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') kept[name] = value;
    else if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) kept[name] = [...(value as string[])];
  }
  return kept;
}
