import { PassThrough } from 'node:stream';
import { InterruptedError } from '../system/errors.js';
import { promptClosed, promptOpened } from './prompt-state.js';

/** The masked prompt on stderr (login's token, a PIN); `what` names it when the prompt is interrupted. */
export async function inquirerSecret(message: string, signal?: AbortSignal, what = 'token'): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  // Inquirer ends the stream it writes to; a pass-through keeps process.stderr open for later output.
  const output = new PassThrough();
  output.pipe(process.stderr, { end: false });
  // Its input ending (Ctrl-D) leaves the process nothing to wait on: the entry point then says so (130).
  promptOpened();
  try {
    return await password({ message, mask: true }, signal === undefined ? { output } : { output, signal });
  } catch (error) {
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
      throw new InterruptedError(`interrupted at the ${what} prompt: nothing was changed`, { cause: error });
    }
    throw error;
  } finally {
    promptClosed();
    output.unpipe(process.stderr);
  }
}
