/** The remote client's semaphore, even rate gate and abortable waits (SIGINT ends every wait at once). */
import { InterruptedError } from '../system/errors.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export function interrupted(): InterruptedError {
  return new InterruptedError('interrupted: the call was abandoned');
}

/** One 'abort' listener per signal, however many calls wait: Node warns past 10 on one EventTarget. */
const abortWaiters = new WeakMap<AbortSignal, Set<() => void>>();

function onAbort(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal) return () => undefined;
  const waiters = abortWaiters.get(signal) ?? new Set<() => void>();
  if (!abortWaiters.has(signal)) {
    abortWaiters.set(signal, waiters);
    const wake = (): void => {
      for (const waiter of [...waiters]) waiter();
      waiters.clear();
    };
    signal.addEventListener('abort', wake, { once: true });
  }
  waiters.add(callback);
  return () => waiters.delete(callback);
}

/** Waits `ms`; rejects with an InterruptedError as soon as `signal` aborts. */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(interrupted());
      return;
    }
    const unsubscribe = onAbort(signal, () => {
      clearTimeout(timer);
      reject(interrupted());
    });
    const timer = setTimeout(() => {
      unsubscribe();
      resolve();
    }, ms);
  });

/** Counting semaphore with an abortable FIFO queue. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private limit: number) {}

  /** Raises the limit (never lowers it); callers waiting take the new slots at once. */
  widen(limit: number): void {
    this.limit = Math.max(this.limit, limit);
    while (this.active < this.limit && this.waiting.length > 0) this.waiting.shift()!();
  }

  /** Takes a free slot at once (no promise, no turn of the event loop); false when the caller must `acquire`. */
  tryAcquire(): boolean {
    if (this.active >= this.limit) return false;
    this.active += 1;
    return true;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.tryAcquire()) return;
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(interrupted());
        return;
      }
      const grant = (): void => {
        unsubscribe();
        this.active += 1;
        resolve();
      };
      const unsubscribe = onAbort(signal, () => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(interrupted());
      });
      this.waiting.push(grant);
    });
  }

  release(): void {
    this.active -= 1;
    const next = this.waiting.shift();
    if (next) next();
  }
}

/** Spaces request starts evenly: at most `perMinute` starts in any minute, no bursts. */
export class RateGate {
  private nextSlot = 0;
  private readonly intervalMs: number;
  constructor(
    perMinute: number,
    private readonly now: () => number,
    private readonly sleep: Sleep,
  ) {
    this.intervalMs = 60_000 / perMinute;
  }

  async wait(signal?: AbortSignal): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    if (slot > now) await this.sleep(slot - now, signal);
  }
}
