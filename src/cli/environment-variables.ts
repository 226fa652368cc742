/**
 * Every environment variable examctl reads, for `examctl help environment`
 * (test/cli/environment-variables.test.ts fails when one the code reads is missing).
 */
import { editDistance } from '../input/name-hints.js';

interface EnvironmentVariable {
  name: string;
  /** What it does, one or two sentences. */
  meaning: string;
  /** The flag that wins over it, when there is one. */
  flag?: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    name: 'EXAMCTL_TARGET',
    meaning: 'local or remote; default: remote when a base URL is configured, else local.',
    flag: '--target',
  },
  { name: 'EXAMCTL_STORE', meaning: 'the local store directory (default ./.examctl-store).', flag: '--store' },
  { name: 'EXAMCTL_BASE_URL', meaning: "the remote service's base URL.", flag: '--base-url' },
  {
    name: 'EXAMCTL_TOKEN',
    meaning: 'the EAPI token itself (prefer --token-file or `examctl login`; never printed).',
    flag: '--token-file',
  },
  {
    name: 'EXAMCTL_PIN',
    meaning:
      "the schedule PIN for schedule push and runs resume; --clear-pin and a --schedule file's PIN beat it (unlike --pin, not in `ps`).",
    flag: '--pin-file',
  },
  {
    name: 'EXAMCTL_PROFILE',
    meaning: 'the config profile to use (base URL, token file, defaults).',
    flag: '--profile',
  },
  {
    name: 'EXAMCTL_CONFIG_DIR',
    meaning:
      'where config.json and stored tokens live (default $XDG_CONFIG_HOME/examctl, else ~/.config/examctl; macOS ~/Library/Application Support/examctl, Windows %APPDATA%\\examctl: docs/windows.md).',
  },
  {
    name: 'EXAMCTL_NOW',
    meaning:
      "pins the local engine's clock, and the instant schedule push's 'already past' warning uses on either target: RFC 3339 with a zone, e.g. 2026-11-21T10:00:00Z (tests, rehearsals).",
  },
  {
    name: 'EXAMCTL_RUNS_DIR',
    meaning: 'where run journals are kept (default $XDG_STATE_HOME/examctl/runs, else ~/.local/state/examctl/runs).',
    flag: '--runs-dir',
  },
  {
    name: 'EXAMCTL_TEST_SIGNAL_AFTER',
    meaning:
      '<sent|outcome|parse>:<N>:<SIGKILL|SIGTERM|SIGINT|SIGHUP>: the run signals itself once N units are on record as sent, N outcomes journaled, or N pieces of a long JSON text read (crash tests, rehearsing a CI recovery).',
  },
  {
    name: 'EXAMCTL_SYNC_DIR',
    meaning:
      'where sync memories are kept: a directory (default "synced" beside the runs directory), or the http(s):// address of a state service speaking Terraform\'s HTTP backend protocol (docs/sync.md, "A state service").',
    flag: '--sync-dir',
  },
  {
    name: 'EXAMCTL_SYNC_USERNAME',
    meaning: 'with a state service: the user name of its basic authentication (GitLab CI: gitlab-ci-token).',
  },
  {
    name: 'EXAMCTL_SYNC_PASSWORD',
    meaning:
      'with a state service: the password or token of its basic authentication (GitLab CI: $CI_JOB_TOKEN); never printed, logged or reported.',
  },
  {
    name: 'EXAMCTL_SYNC_LOCK_ADDRESS',
    meaning: 'with a state service: where its lock is taken (default: the address itself; GitLab: <address>/lock).',
  },
  {
    name: 'EXAMCTL_SYNC_LOCK_METHOD',
    meaning: 'with a state service: the method that takes its lock (default LOCK; GitLab and Gitea: POST).',
  },
  {
    name: 'EXAMCTL_SYNC_UNLOCK_ADDRESS',
    meaning: 'with a state service: where its lock is released (default: the address itself; GitLab: <address>/lock).',
  },
  {
    name: 'EXAMCTL_SYNC_UNLOCK_METHOD',
    meaning: 'with a state service: the method that releases its lock (default UNLOCK; GitLab and Gitea: DELETE).',
  },
  {
    name: 'EXAMCTL_LOCK_TIMEOUT_MS',
    meaning:
      'how long a writer waits for the local store lock, and a run for another run on the same sync memory (docs/sync.md), in milliseconds (default 10000), and a config command for the config directory (default 5000).',
  },
  { name: 'CI', meaning: 'true (or 1, yes): never prompt, as --no-input; no spinner. false or 0 count as not CI.' },
  {
    name: 'GITHUB_ACTIONS',
    meaning: 'true (set by GitHub Actions): failed records are also written as workflow annotations on stderr.',
  },
  { name: 'GITHUB_WORKSPACE', meaning: 'with GITHUB_ACTIONS: annotation file paths are made relative to it.' },
  { name: 'NO_COLOR', meaning: 'any non-empty value: no colour (https://no-color.org).' },
  {
    name: 'TZ',
    meaning:
      "this computer's time zone (e.g. Europe/Berlin), which review-session show's table shows times in without --timezone.",
  },
  { name: 'FORCE_COLOR', meaning: 'colour even when piped; FORCE_COLOR=0 turns colour off.' },
  { name: 'TERM', meaning: 'dumb: no colour.' },
  {
    name: 'XDG_CONFIG_HOME',
    meaning: 'the config directory base when EXAMCTL_CONFIG_DIR is not set (empty or relative: ignored).',
  },
  {
    name: 'XDG_STATE_HOME',
    meaning: "the run journals' base directory when EXAMCTL_RUNS_DIR is not set (empty or relative: ignored).",
  },
  { name: 'APPDATA', meaning: 'Windows: the config lives in %APPDATA%\\examctl when EXAMCTL_CONFIG_DIR is not set.' },
  {
    name: 'LOCALAPPDATA',
    meaning: 'Windows: the run journals live in %LOCALAPPDATA%\\examctl\\runs when EXAMCTL_RUNS_DIR is not set.',
  },
  {
    name: 'UV_THREADPOOL_SIZE',
    meaning:
      "Node's I/O thread pool size (default 4); the local engine hashes at most one password fewer than that at once, so store I/O is never starved.",
  },
  {
    name: 'HTTPS_PROXY',
    meaning:
      'https_proxy too (the lower-case form wins): the proxy for an https:// base URL, e.g. http://proxy:3128 (a CONNECT tunnel; credentials in it are never printed).',
  },
  {
    name: 'HTTP_PROXY',
    meaning:
      'http_proxy too (the lower-case form wins): the proxy for a plain http:// base URL. A loopback base URL is never proxied.',
  },
  {
    name: 'NO_PROXY',
    meaning:
      'no_proxy too: hosts reached directly, comma-separated (example.org matches its subdomains; host:port; * for all).',
  },
  {
    name: 'EXAMCTL_REQUEST_TIMEOUT_MS',
    meaning:
      'how long one attempt of a request to the remote target may take, headers and body, in milliseconds (default 60000; from 100 to 3600000); a request past it is retried like a network failure. It bounds each exchange with a state service too (never retried).',
  },
  {
    name: 'EXAMCTL_STOP_GRACE_MS',
    meaning:
      'after Ctrl-C/SIGTERM, how long requests already sent may still answer, in milliseconds (default 10000); then they are abandoned as "answer lost, may have been applied".',
  },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    meaning:
      'a PEM file of extra CA certificates, read by Node: for a service whose certificate comes from a private CA.',
  },
  { name: 'NODE_TLS_REJECT_UNAUTHORIZED', meaning: 'ignored: examctl always checks certificates.' },
  {
    name: 'LC_ALL',
    meaning: 'then LC_CTYPE, then LANG: a locale not UTF-8 (or none) prints the run counts as one line.',
  },
  { name: 'LC_CTYPE', meaning: 'see LC_ALL.' },
  { name: 'LANG', meaning: 'see LC_ALL.' },
  {
    name: 'HOME',
    meaning:
      "your home (~): the config and run journals' default place, ~ in token file paths, where the search for a store stops. Empty or relative: as unset (the account's home). With no home at all, give EXAMCTL_CONFIG_DIR and EXAMCTL_RUNS_DIR.",
  },
];

const PREFIX = 'EXAMCTL_';

/**
 * The notes for variables set with examctl's prefix that it does not read but one it does is
 * close to (a typo in a job's environment is otherwise silently ignored): one edit or two, or a
 * known name with a part left off (a timeout without its `_MS`). Names of other characters are
 * never quoted (a terminal's escapes).
 */
export function misspelledVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  const known = ENVIRONMENT_VARIABLES.map((variable) => variable.name).filter((name) => name.startsWith(PREFIX));
  return Object.keys(env).flatMap((name) => {
    if (!/^EXAMCTL_[A-Z0-9_]+$/.test(name) || known.includes(name)) return [];
    const meant =
      known.find((candidate) => candidate.startsWith(`${name}_`)) ??
      known.find((candidate) => editDistance(name, candidate, 2) <= 2);
    return meant === undefined
      ? []
      : [`note: ${name} is set, but examctl reads no such variable: did you mean ${meant}? (examctl help environment)`];
  });
}

/** The `examctl help environment` text: name, then its meaning (and the flag that wins). */
export function renderEnvironmentHelp(): string {
  const width = Math.max(...ENVIRONMENT_VARIABLES.map((variable) => variable.name.length));
  const lines = ENVIRONMENT_VARIABLES.map((variable) => {
    const flag = variable.flag === undefined ? '' : ` (${variable.flag} wins over it)`;
    return `  ${variable.name.padEnd(width)}  ${variable.meaning}${flag}`;
  });
  return `Environment variables examctl reads:\n\n${lines.join('\n')}\n`;
}
