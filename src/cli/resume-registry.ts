import { commandName, type CommandDeclaration, type CommandRun, type RerunInput } from './option-table.js';
import { COMMANDS } from './program.js';

/**
 * What `runs resume` and `runs show` need of the command a run journal names, found in the
 * registry (program.ts) by the command's path, as `--help` finds it: its behaviour (`load`) and how
 * its input is read again (`resume.input`), or why it cannot be resumed. No list of its own, so a
 * new record command is resumable once its declaration says how (test/runs/resume-registry.test.ts).
 */
export type ResumeEntry = { readonly run: () => Promise<CommandRun<never>>; readonly input: () => Promise<RerunInput> } | { readonly notResumable: string };

export function resumeEntry(command: string, commands: readonly CommandDeclaration[] = COMMANDS): ResumeEntry {
  const declaration = commands.find((each) => commandName(each) === command);
  if (declaration?.load === undefined) return { notResumable: `this examctl has no command "${command}"` };
  const support = declaration.resume;
  if (support === undefined) return { notResumable: 'its command declares no way to resume' };
  if ('notResumable' in support) return support;
  return { run: declaration.load, input: support.input };
}
