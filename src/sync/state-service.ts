/** A state service (Terraform's HTTP backend) keeping the sync memory (docs/sync.md, "A state service"). */
import { quotedValue } from '../domain/problem.js';
import { randomUUID, createHash } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { privateTempRoot } from '../system/private-temp.js';
import { checkStateAddress, openStateHttp, type StateAnswer, type StateHttp } from '../context/state-http.js';
import { StoreLockedError, TargetError, UsageError } from '../system/errors.js';
import {
  describeHolder as describeLocalHolder,
  isStale,
  lockInfoOf,
  ownLockInfo,
  type LockInfo,
} from '../system/lock.js';
import { nonEmpty, type Env } from '../system/env-values.js';
import { EXAMCTL_VERSION } from '../version.js';
import { MAX_JSON_DEPTH, parseJson, scanJsonYielding } from '../system/json-scan.js';
import type { OnWait } from './memory-access.js';

/** Terraform's lock info, as sent to lock and unlock and as a holder is named. */
export interface StateLockInfo {
  ID: string;
  Operation: string;
  Info: string;
  Who: string;
  Version: string;
  Created: string;
  Path: string;
}

const METHOD = /^[A-Za-z]{1,20}$/;

export class StateService {
  private readonly lockAddress: string;
  private readonly unlockAddress: string;
  private readonly lockMethod: string;
  private readonly unlockMethod: string;
  private readonly http: StateHttp;

  /** The service at `address` (exit 2 for one examctl will not use), with the environment's credentials and locks. */
  constructor(address: string, env: Env) {
    this.http = openStateHttp(address, env);
    this.lockAddress = nonEmpty(env.EXAMCTL_SYNC_LOCK_ADDRESS) ?? this.http.address;
    this.unlockAddress = nonEmpty(env.EXAMCTL_SYNC_UNLOCK_ADDRESS) ?? this.http.address;
    this.lockMethod = methodOf(env.EXAMCTL_SYNC_LOCK_METHOD, 'LOCK', 'EXAMCTL_SYNC_LOCK_METHOD');
    this.unlockMethod = methodOf(env.EXAMCTL_SYNC_UNLOCK_METHOD, 'UNLOCK', 'EXAMCTL_SYNC_UNLOCK_METHOD');
    checkStateAddress(this.lockAddress, 'EXAMCTL_SYNC_LOCK_ADDRESS');
    checkStateAddress(this.unlockAddress, 'EXAMCTL_SYNC_UNLOCK_ADDRESS');
  }

  get address(): string {
    return this.http.address;
  }

  /** The document (`at`: another address, a run's intents); undefined when none yet (404, 204, an empty 200). */
  async read(at = this.address): Promise<string | undefined> {
    const answer = await this.http.exchange('GET', at);
    if (answer.status === 404 || (took(answer) && answer.text.trim() === '')) return undefined;
    if (answer.status !== 200) throw this.failed('GET', answer, at);
    // Ctrl-C stops a long document at once (its readers' parse holds the event loop).
    await scanJsonYielding(answer.text, { depth: MAX_JSON_DEPTH });
    return answer.text;
  }

  /**
   * Stores the document (`lockId`: the lock this run holds; `at`: a batch's, a delta's address) and
   * reads it back (post); one not held is sent again, then what `at` held (`keep`: else nothing) is
   * put back, a batch or delta removed failing that, a memory kept in a file: exit 3 says which.
   */
  async write(text: string, lockId: string | undefined, at = this.address, keep = at === this.address): Promise<void> {
    const before = keep ? await this.read(at) : undefined;
    let held = await this.post(text, lockId, at);
    if (held === text || (held = await this.post(text, lockId, at)) === text) return;
    const words = `the state service at ${at} acknowledged POST but still holds ${held === undefined ? 'no document' : 'another document'}: the memory was not stored (sent twice; `;
    const undo =
      before === undefined ? this.remove(lockId, at).then(() => this.read(at)) : this.post(before, lockId, at);
    if ((await undo.catch(() => held)) === before) {
      throw new TargetError(`${words}${before === undefined ? 'removed again' : 'what it held before is put back'})`, {
        code: 'E3050',
      });
    }
    if (at !== this.address) {
      const left = await this.remove(lockId, at).then(
        () => 'removed, not put back',
        () => 'left there, damaged: delete it on the service',
      );
      throw new TargetError(`${words}${left})`, { code: 'E3050' });
    }
    const file = join(await privateTempRoot(), `sync-memory-${Date.now()}.json`);
    await writeFile(file, text, { mode: 0o600, flag: 'wx' });
    const back = `once the service stores again, examctl synced import ${file} --sync-dir ${at} --force`;
    throw Object.assign(
      new TargetError(`${words}nor what it held put back): this run's memory is in ${file}; ${back}`, {
        code: 'E3050',
      }),
      { whole: true },
    );
  }

  /** `text` POSTed to `at` and read back: `text` when held. */
  private async post(text: string, lockId: string | undefined, at: string): Promise<string | undefined> {
    const md5 = createHash('md5').update(text, 'utf8').digest('base64');
    const answer = await this.http.exchange('POST', withLockId(at, lockId), { text, type: 'application/json', md5 });
    if (!took(answer)) throw this.failed('POST', answer, at, 'E3050');
    const held = await this.read(at);
    // JSON the service re-encoded: its checksum says.
    const sum = jsonObject(text).sha256;
    return held === text || (typeof sum === 'string' && jsonObject(held).sha256 === sum) ? text : held;
  }

  /** Removes the document (`synced forget`; `at`: a run's intents). */
  async remove(lockId: string | undefined, at = this.address): Promise<void> {
    const answer = await this.http.exchange('DELETE', withLockId(at, lockId));
    if (!took(answer, 404)) throw this.failed('DELETE', answer, at);
  }

  /** Takes the lock; while another holds it (423, 409) waits up to `timeoutMs`, then exit 3 naming the holder. */
  async lock(operation: string, timeoutMs: number, onWait?: OnWait): Promise<StateLockInfo> {
    const ID = randomUUID();
    const info: StateLockInfo = {
      ID,
      Operation: operation,
      // Whose it is, as a local lock file says it: a holder on this host whose process is gone is taken over.
      Info: JSON.stringify(ownLockInfo(ID)),
      Who: `${safeUser()}@${hostname()}`,
      Version: `examctl ${EXAMCTL_VERSION}`,
      Created: new Date().toISOString(),
      Path: '',
    };
    const deadline = Date.now() + timeoutMs;
    const takenOver = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      let answer: StateAnswer;
      try {
        answer = await this.http.exchange(this.lockMethod, this.lockAddress, {
          text: JSON.stringify(info),
          type: 'application/json',
        });
      } catch (error) {
        // No whole answer (the request timeout): the lock may be taken all the same, so it is released.
        await this.unlock(info).catch(() => undefined);
        throw error;
      }
      if (took(answer)) return info;
      if (answer.status !== 423 && answer.status !== 409) throw this.failed(`${this.lockMethod} (lock)`, answer);
      const holder = describeHolder(answer.text);
      const dead = deadHolderHere(answer.text);
      if (dead !== undefined && holder.id !== undefined && !takenOver.has(holder.id)) {
        takenOver.add(holder.id);
        await this.unlock({ ID: holder.id });
        onWait?.(
          `note: took over the lock of the sync memory at ${this.address} held by ${holder.words}: its process (${describeLocalHolder(dead)}) no longer runs on this host`,
        );
        continue;
      }
      if (Date.now() >= deadline) {
        throw new StoreLockedError(
          `the sync memory at ${this.address} is locked by ${holder.words}; gave up after ${timeoutMs} ms (EXAMCTL_LOCK_TIMEOUT_MS). Wait for that run to end. ` +
            `If it no longer runs (killed), release its lock: ${this.unlockVariables()}examctl synced unlock ${holder.id ?? '<lock id>'} --sync-dir ${this.address}`,
          { code: 'E3021' },
        );
      }
      if (attempt === 0)
        onWait?.(`waiting for ${holder.words}: it holds the lock of the sync memory at ${this.address}`);
      await sleep(Math.min(2000, 100 * 2 ** attempt, Math.max(1, deadline - Date.now())));
    }
  }

  /**
   * The unlock place this run was given, as the release command a refusal prints must carry it: typed where the
   * job's variables are not set (GitLab answers the default UNLOCK with 405).
   */
  private unlockVariables(): string {
    const address = this.unlockAddress === this.address ? '' : `EXAMCTL_SYNC_UNLOCK_ADDRESS=${this.unlockAddress} `;
    return address + (this.unlockMethod === 'UNLOCK' ? '' : `EXAMCTL_SYNC_UNLOCK_METHOD=${this.unlockMethod} `);
  }

  /** Releases a lock (this run's, or by its id one a killed run left: `synced unlock`). */
  async unlock(info: Pick<StateLockInfo, 'ID'> & Partial<StateLockInfo>): Promise<void> {
    const answer = await this.http.exchange(this.unlockMethod, withLockId(this.unlockAddress, info.ID), {
      text: JSON.stringify(info),
      type: 'application/json',
    });
    if (took(answer)) return;
    if (answer.status === 423 || answer.status === 409) {
      throw new StoreLockedError(
        `the sync memory at ${this.address} is locked by ${describeHolder(answer.text).words}, not by lock ${info.ID}: not released`,
        { code: 'E3021' },
      );
    }
    throw this.failed(`${this.unlockMethod} (unlock)`, answer);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** `stored`: a write the service did not take (the memory not stored, E3050); else the service failed (E3000). */
  private failed(what: string, answer: StateAnswer, at = this.address, stored?: 'E3050'): TargetError {
    const body = answer.text.trim().replace(/\s+/g, ' ').slice(0, 200);
    if (answer.status === 401 || answer.status === 403) {
      return new TargetError(
        `the state service at ${at} refused ${what} (${answer.status}): check EXAMCTL_SYNC_USERNAME and EXAMCTL_SYNC_PASSWORD (a token that may write the state)`,
        { code: 'E3011' },
      );
    }
    return new TargetError(
      `the state service at ${at} answered ${what} with ${answer.status}${body === '' ? '' : `: ${body}`}`,
      { code: stored },
    );
  }
}

/** `use` run with a client of the service at `address`, closed after. */
export async function withService<T>(address: string, env: Env, use: (service: StateService) => Promise<T>) {
  const service = new StateService(address, env);
  try {
    return await use(service);
  } finally {
    await service.close();
  }
}

/** Terraform's form: the lock id as the ID query parameter. */
function withLockId(address: string, lockId: string | undefined): string {
  if (lockId === undefined) return address;
  const url = new URL(address);
  url.searchParams.set('ID', lockId);
  return url.href;
}

function methodOf(value: string | undefined, fallback: string, name: string): string {
  const method = nonEmpty(value)?.toUpperCase() ?? fallback;
  if (!METHOD.test(method))
    throw new UsageError(`${name} must be an HTTP method (e.g. POST), got ${quotedValue(value)}`);
  return method;
}

/** The holder a 423 or 409 names (its lock info), in words; the service's text is already redacted. */
function describeHolder(text: string): { words: string; id: string | undefined } {
  // Not lock info: said as unknown.
  const info = jsonObject(text) as Partial<Record<keyof StateLockInfo, unknown>>;
  const field = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value.slice(0, 200) : undefined;
  const id = field(info.ID);
  if (id === undefined && field(info.Who) === undefined)
    return { words: 'another run (the service did not say which)', id: undefined };
  const parts = [field(info.Operation), id === undefined ? undefined : `lock ${id}`].filter(
    (part) => part !== undefined,
  );
  const since = field(info.Created);
  return {
    words: `${field(info.Who) ?? 'someone'}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}${since === undefined ? '' : ` since ${since}`}`,
    id,
  };
}

/** The holder's own record (its Info) when it ran on this host and its process is gone (system/lock.ts, isStale). */
function deadHolderHere(text: string): LockInfo | undefined {
  const held = jsonObject(text).Info;
  const local = lockInfoOf(jsonObject(typeof held === 'string' ? held : undefined));
  return local !== undefined && isStale(local) ? local : undefined;
}

/** A status saying it was done (`also`: one more). */
function took(answer: StateAnswer, also?: number): boolean {
  return [200, 201, 204, also].includes(answer.status);
}

/** `text` as a JSON object; anything else (not JSON, not an object) as an empty one. */
export function jsonObject(text: string | undefined): Record<string, unknown> {
  try {
    const parsed = parseJson(text ?? '', { depth: MAX_JSON_DEPTH });
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
