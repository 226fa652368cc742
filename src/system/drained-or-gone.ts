/**
 * Resolves once `stream` takes more writes ('drain') or will never take any ('close', 'error'):
 * a stream whose reader went away, or whose disk is full, never drains, and a writer waiting
 * only for 'drain' would wait for ever.
 */
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
