import type { TextSink } from '../../src/system/text-sink.js';

/** Collects everything written, for a test to read back as one string. */
export class StringSink implements TextSink {
  private readonly parts: string[] = [];
  write(text: string): void {
    this.parts.push(text);
  }
  get text(): string {
    return this.parts.join('');
  }
}
