/**
 * A scripted terminal for prompt tests: an input stream that claims to be a TTY (raw mode is a
 * no-op) and an output that records what the prompts draw. Keys are typed only once the expected
 * question is on screen, because each inquirer prompt opens its own readline on the input and a
 * key typed early would be read by the previous prompt.
 */
import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';

export const KEY = {
  enter: '\r',
  space: ' ',
  down: '\u001b[B',
  up: '\u001b[A',
  ctrlC: '\u0003',
  /** readline: delete from the cursor to the start of the line. */
  clearLine: '\u0015',
} as const;

export interface Step {
  /** Text that must appear on screen (after the previous step's match) before typing. */
  expect: string;
  keys: string;
}

class FakeTtyInput extends PassThrough {
  isTTY = true;
  isRaw = false;
  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }
}

class ScreenOutput extends Writable {
  raw = '';
  isTTY = true;
  columns = 120;
  rows = 40;
  private readonly changeListeners = new Set<() => void>();
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.raw += chunk.toString();
    for (const listener of this.changeListeners) listener();
    callback();
  }
  get text(): string {
    return stripVTControlCharacters(this.raw);
  }
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }
}

export class FakeTerminal {
  readonly input = new FakeTtyInput();
  readonly output = new ScreenOutput();
  private cursor = 0;

  get io(): { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } {
    return { input: this.input, output: this.output };
  }

  /** Everything drawn so far, without ANSI sequences. */
  get screen(): string {
    return this.output.text;
  }

  /**
   * Waits for `text` to appear after the last match, then moves the match cursor past it. The bound
   * only turns a prompt that never comes into a message showing the screen, before the test's own
   * limit (vitest.config.ts, 120 s): it is not a speed check, so it is far above any load's delay.
   */
  waitFor(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const at = this.output.text.indexOf(text, this.cursor);
        if (at < 0) return false;
        this.cursor = at + text.length;
        return true;
      };
      if (check()) return resolve();
      const timer = setTimeout(() => {
        stop();
        reject(
          new Error(
            `never saw ${JSON.stringify(text)} on screen; screen after cursor:\n${this.output.text.slice(this.cursor)}`,
          ),
        );
      }, 100_000);
      const stop = this.output.onChange(() => {
        if (!check()) return;
        clearTimeout(timer);
        stop();
        resolve();
      });
    });
  }

  /** Types `keys` as a person would: each key after the previous one was handled. */
  async type(keys: string): Promise<void> {
    for (const key of splitKeys(keys)) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.input.write(key);
    }
  }

  /** Plays the steps in order; resolves when every key was typed. */
  async play(steps: readonly Step[]): Promise<void> {
    for (const step of steps) {
      await this.waitFor(step.expect);
      await this.type(step.keys);
    }
  }
}

/** Splits typed text into keys, keeping escape sequences (arrows) whole. */
function splitKeys(keys: string): string[] {
  const out: string[] = [];
  for (let index = 0; index < keys.length; ) {
    if (keys[index] === '\u001b' && keys[index + 1] === '[') {
      out.push(keys.slice(index, index + 3));
      index += 3;
    } else {
      out.push(keys[index]!);
      index += 1;
    }
  }
  return out;
}
