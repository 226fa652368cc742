/**
 * Work a remote run does once the requests it just dispatched are on the wire: the answers'
 * journal lines, memory and report items, and reading the next units.
 *
 * undici (7.x, `Pool` with pipelining 1) writes the next request on a keep-alive connection two
 * event-loop turns after that connection's answer came in: the answer's end queues an immediate
 * that frees the connection (the request dispatched meanwhile waits in the pool's queue), and
 * the freed connection, before it writes on a socket it used before, queues one more immediate so
 * that the poll phase first sees a connection the server closed (client-h1.js
 * `scheduleIdleSocketValidation`). Immediates run in the order they were queued, and one queued
 * in a check phase runs in the next turn's. So an immediate of examctl's queued with the answer
 * ran before those writes, and the handling of a whole burst of answers delayed every request of
 * the burst (the server saw ~1 ms more between an answer and the next request than with a bare
 * undici loop). Here the work waits for two check phases: the first immediate is queued again
 * after each dispatch of its turn (`behind`), so it runs after the immediates that free the
 * connections; it then queues the second, which runs after the writes they queued.
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
