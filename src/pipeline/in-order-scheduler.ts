/** A reorder buffer: emits items in input order, at most `window` answers in flight, `maxBuffered` waiting. */
interface InOrderSchedulerOptions<T> {
  window: number;
  /** Items (answered or not) held back behind the oldest unanswered one; bounds memory. */
  maxBuffered: number;
  /** Receives the items in input order; a returned promise is back-pressure and is awaited. */
  emit(item: T): void | Promise<void>;
}

/** One place in input order: its item once known, the answer while it is pending, or how it failed. */
interface Slot<T> {
  item: T | undefined;
  answer: Promise<T> | undefined;
  failed: boolean;
  error: unknown;
}

export class InOrderScheduler<T extends object> {
  private readonly pending: Slot<T>[] = [];
  private inFlight = 0;
  private wakeSender: (() => void) | undefined;

  constructor(private readonly options: InOrderSchedulerOptions<T>) {}

  /** Takes the next item; a promise only when the caller must wait (window or buffer full, `emit` pushed back). */
  accept(item: T | Promise<T>): void | Promise<void> {
    if (!(item instanceof Promise)) {
      if (this.pending.length === 0) return this.options.emit(item);
      this.pending.push({ item, answer: undefined, failed: false, error: undefined });
      return this.settle();
    }
    const slot: Slot<T> = { item: undefined, answer: item, failed: false, error: undefined };
    // Kept on its slot, a rejection too: observed when its turn comes, never unhandled before.
    void item.then(
      (value) => {
        slot.item = value;
        this.answered();
      },
      (error: unknown) => {
        slot.failed = true;
        slot.error = error;
        this.answered();
      },
    );
    this.inFlight += 1;
    this.pending.push(slot);
    return this.settle();
  }

  /** An answer handed on after its slot was freed early (`answered`, answersInTurns) takes one again. */
  retake(): void {
    this.inFlight += 1;
  }

  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.emitHead();
  }

  /** After a failure: lets every answer in flight come in, emits nothing more. */
  async abandon(): Promise<void> {
    const answers = this.pending.map((slot) => slot.answer);
    this.pending.length = 0;
    await Promise.allSettled(answers);
  }

  /** A slot was answered, or an answer that cannot stop the run freed its slot early: free for the sender. */
  answered(): void {
    this.inFlight -= 1;
    // An answer handed on after its slot was freed early (`retake`) frees none: the sender sleeps on.
    if (this.inFlight >= this.options.window) return;
    const wake = this.wakeSender;
    this.wakeSender = undefined;
    wake?.();
  }

  /** Emits the oldest item, waiting for its answer when it is one. */
  private async emitHead(): Promise<void> {
    const head = this.pending.shift() as Slot<T>;
    if (head.failed === true) throw head.error;
    await this.options.emit(head.item ?? (await (head.answer as Promise<T>)));
  }

  /** Emits what is known at the head; waits while the buffer or the window is full. */
  private settle(): void | Promise<void> {
    const pending = this.pending;
    while (pending.length > 0 && pending[0]!.item !== undefined) {
      const wait = this.options.emit((pending.shift() as Slot<T>).item as T);
      if (wait !== undefined) return wait.then(() => this.settle());
    }
    if (pending.length >= this.options.maxBuffered) return this.emitHead().then(() => this.settle());
    if (this.inFlight >= this.options.window)
      return new Promise<void>((wake) => (this.wakeSender = wake)).then(() => this.settle());
  }
}
