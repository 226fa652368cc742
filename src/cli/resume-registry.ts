import type { StoreKeyKind } from '../port/integration-api.js';
import { InternalError } from '../system/errors.js';
import type { KeptOptions } from '../flags/option-table.js';
import type { RerunInput } from '../pipeline/record-job.js';
import { commandName, keptOptionNames, type CliDeps, type CommandRun } from './command-declaration.js';

/**
 * What `runs resume` and `runs show` need of the command a journal names, found by its path in the registry
 * (program.ts): its behaviour and how its input is read again, or why it cannot be resumed. No list of its own
 * (test/runs/resume-registry.test.ts).
 */
type ResumeEntry =
  | {
      readonly run: () => Promise<CommandRun<never>>;
      readonly input: () => Promise<RerunInput>;
      readonly keptOptions: KeptOptions;
      readonly storeKeys?: StoreKeyKind;
    }
  | { readonly notResumable: string };

export function resumeEntry(
  command: string,
  { behaviours, commands = [] }: Pick<CliDeps, 'behaviours' | 'commands'>,
): ResumeEntry {
  const declaration = commands.find((each) => commandName(each) === command);
  const behaviour = behaviours?.get(command);
  if (declaration === undefined || behaviour === undefined)
    return { notResumable: `this examctl has no command "${command}"` };
  const support = declaration.resume;
  if (support === undefined) return { notResumable: 'its command declares no way to resume' };
  if (support !== 'rerun') return support;
  const input = async (): Promise<RerunInput> => {
    const loaded = await behaviour.rerunInput?.();
    if (loaded === undefined)
      throw new InternalError(`${command} is declared resumable but its module exports no rerunInput`);
    return loaded;
  };
  return { run: behaviour.run, input, keptOptions: keptOptionNames(declaration), storeKeys: declaration.storeKeys };
}
