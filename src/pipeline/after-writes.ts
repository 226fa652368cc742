/**
 * Work a remote run does once the requests it just dispatched are on the wire: the answers'
 * journal lines, memory and report items, and reading the next units. undici writes a request
 * on a used keep-alive connection two check phases after its answer (bench/README.md, "Session
 * 40: sending", for why and what it measured), so the work waits for two: the first immediate is
 * queued again after each dispatch of its turn (`behind`), and it queues the second.
 */
export class AfterWrites {
  private waiting: (() => void)[] = [];
  private ready: (() => void)[] = [];
  private first: NodeJS.Immediate | undefined;
  private second: NodeJS.Immediate | undefined;

  /** End of the answers' check phase: the connections are free, their writes queued. */
  private readonly freed = (): void => {
    this.first = undefined;
    for (const task of this.waiting) this.ready.push(task);
    this.waiting = [];
    this.second ??= setImmediate(this.run);
  };

  private readonly run = (): void => {
    this.second = undefined;
    const tasks = this.ready;
    this.ready = [];
    for (const task of tasks) task();
  };

  /** Runs `task` once the requests dispatched so far in this turn are written. */
  add(task: () => void): void {
    this.waiting.push(task);
    this.first ??= setImmediate(this.freed);
  }

  /** A request was just dispatched: what waits goes after its write. */
  behind(): void {
    if (this.first === undefined) return;
    clearImmediate(this.first);
    this.first = setImmediate(this.freed);
  }
}
