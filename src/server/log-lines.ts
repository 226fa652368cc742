/**
 * The server's log lines, written once per turn of the event loop. Under load a server answers
 * many requests per turn, and stderr on a pipe or a file is written synchronously, one system
 * call per write on the event loop. Order is kept and no line waits past the current turn;
 * flush() writes what is pending at once (before a line written some other way).
 */
interface LineBatcher {
  log(line: string): void;
  flush(): void;
}

export function lineBatcher(write: (text: string) => void): LineBatcher {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    write(text);
  };
  return {
    log(line) {
      pending.push(`${line}\n`);
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush();
      });
    },
    flush,
  };
}
