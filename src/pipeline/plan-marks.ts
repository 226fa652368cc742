/**
 * Where the store and the sync memory stand, as a plan records them and `examctl apply` compares
 * them (docs/plan.md, "Refusals"): opaque values, equal or not, never ordered or guessed.
 */
import { createHash } from 'node:crypto';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { memoryDir, memoryPlaceOf, storeHead } from '../context/target.js';
import { openStateHttp } from '../context/state-http.js';

/** There is no sync memory for the target (yet). */
export const NO_MEMORY = 'none';

/** The store's head (docs/sync.md, "Where the store stands"), exact; null where it cannot be said or asked. */
export async function targetStoreMark(target: ResolvedTarget): Promise<string | null> {
  if (target.kind !== 'local' && target.tokenSource === undefined) return null;
  return (await storeHead(target, [], target.kind !== 'local'))?.head ?? null;
}

/**
 * Whether the target's store still holds `head` (its history reaches it): false for a local store gone or that
 * does not (restored to before it, replaced); undefined where it cannot be asked (the platform, no token).
 */
export async function storeHolds(target: ResolvedTarget, head: string): Promise<boolean | undefined> {
  if (target.kind !== 'local' && target.tokenSource === undefined) return undefined;
  const now = await storeHead(target, [head], target.kind !== 'local');
  if (now === undefined) return target.kind === 'local' ? false : undefined;
  return now.holds.includes(head);
}

/** Profile settings that shape no request: where and how fast it goes (the target is compared apart). */
const NOT_SHAPING = new Set(['baseUrl', 'concurrency', 'rate']);

/** The profile's settings the run reads that shape its requests, in its settings line's words; '' none. */
export async function settingsMark(target: ResolvedTarget): Promise<string> {
  const profile = target.note?.profile;
  if (profile === undefined || !profile.used) return '';
  const { settingsText } = await import('../context/profile-settings.js');
  return settingsText(Object.fromEntries(Object.entries(profile.settings).filter(([key]) => !NOT_SHAPING.has(key))));
}

/** The sync memory's position: a digest of every memory file or the state document; NO_MEMORY where there is none. */
export async function memoryMark(target: ResolvedTarget, deps: CommandDeps): Promise<string> {
  const { syncDir, runsDir } = (deps.invocation ?? {}) as { syncDir?: string; runsDir?: string };
  const place = memoryPlaceOf(syncDir, runsDir, deps);
  const sum = createHash('sha256');
  if (place.kind === 'service') {
    const http = openStateHttp(place.address, deps.env);
    try {
      const answer = await http.exchange('GET', place.address);
      if (answer.status === 404 || answer.text.trim() === '') return NO_MEMORY;
      return sum.update(`${answer.status}\0${answer.text}`).digest('hex');
    } finally {
      await http.close();
    }
  }
  const dir = memoryDir(place.syncDir, target.report);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.ndjson')).sort();
  let any = false;
  for (const name of names) {
    // Streamed: 50,000 users' memory is ~20 MB, never held whole beside the run's own.
    const file = await open(join(dir, name)).catch(() => undefined);
    if (file === undefined) continue;
    try {
      const { size } = await file.stat();
      if (size === 0) continue;
      any = true;
      sum.update(`${name}\0${size}\0`);
      for await (const chunk of file.createReadStream({ autoClose: false, highWaterMark: 1 << 16 })) sum.update(chunk);
    } finally {
      await file.close();
    }
  }
  return any ? sum.digest('hex') : NO_MEMORY;
}
