/**
 * Where text output goes. `write` may return a promise so a producer of 500k report items
 * waits for a slow pipe instead of buffering the whole document in memory.
 */
export interface TextSink {
  write(text: string): void | Promise<void>;
}

/** A sink over a Node stream that honours back-pressure. */
export function streamSink(stream: NodeJS.WritableStream): TextSink {
  return {
    write(text: string): void | Promise<void> {
      if (stream.write(text)) return;
      return new Promise<void>((resolve) => stream.once('drain', () => resolve()));
    },
  };
}

/** Collects everything written; used by tests and by commands that render into a string first. */
export class StringSink implements TextSink {
  private readonly parts: string[] = [];
  write(text: string): void {
    this.parts.push(text);
  }
  get text(): string {
    return this.parts.join('');
  }
}

/**
 * Gathers small writes into chunks of about `chunkSize` characters: a report of 500k items
 * then costs a few hundred write calls instead of 500k. `flush` must be called at the end.
 */
export class BufferedSink implements TextSink {
  private parts: string[] = [];
  private size = 0;

  constructor(
    private readonly target: TextSink,
    private readonly chunkSize = 64 * 1024,
  ) {}

  write(text: string): void | Promise<void> {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= this.chunkSize) return this.flush();
  }

  flush(): void | Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    return this.target.write(chunk);
  }
}
