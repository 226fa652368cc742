/** Resolves on 'drain', 'close' or 'error': a stream whose reader went or whose disk is full never drains. */
export function drainedOrGone(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}
