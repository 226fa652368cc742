import type { CollectionRequest } from '../../domain/types.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { commandName } from '../command-declaration.js';
import type { RerunInput } from '../../pipeline/record-job.js';
import type { Outcome, RecordJob, RunOutcome } from '../../pipeline/record-job.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { createdByLostAttempt } from '../../pipeline/service-answer.js';
import { CollectionsAdded, collectionsToAdd, sendCollection } from '../../pipeline/collection-input.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { COLLECTION_ADD, type CollectionAddOptions } from './collection-add.options.js';
import { COLLECTION_FIELD_OPTIONS } from '../../flags/collection-fields.js';
import { FILE_OPTIONS, WHOLE_FILE_OPTIONS } from './file-options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import type { InputFlagOptions } from '../../pipeline/command-input.js';
import { CollectionMemory } from '../../sync/collection-memory.js';

/** `examctl collection add`: one POST /collections per collection, from flags or a JSON file. */
export async function run(given: CollectionAddOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const [input, rest] = takeTableFlags(given, FILE_OPTIONS);
  const [fields, { file, existing = 'fail', syncDir, planOut: _planOut, ...globals }] = takeTableFlags(
    rest,
    COLLECTION_FIELD_OPTIONS,
  );
  // `planOut` is read by the pipeline (a dry run's plan: plan-tap.ts).
  const options = onlyGlobals(globals);
  const { onlyFailed } = input;
  // What examctl sent each target (docs/sync.md, "Collections"): fed by every real run, read by --existing ok.
  const memory = new CollectionMemory(
    'collections',
    { syncDir, runsDir: options.runsDir, dryRun: options.dryRun },
    deps,
    target,
    (collection) => collection,
  );
  const added = new CollectionsAdded(file !== undefined);
  const job: RecordJob<CollectionRequest, Outcome> = {
    command: commandName(COLLECTION_ADD),
    ...(await collectionAddInput({ file, ...input, ...globals, ...fields }, options, deps)),
    prepare: async () => void (await memory.open(existing === 'ok')),
    confirmAction: 'send',
    send: async (api, collection, callOptions) =>
      memory.existing(collection, await sendCollection(api, collection, callOptions), existing),
    ...memory.hooks(),
    lostAttemptDid: createdByLostAttempt('/collections'),
    withChosenId: added.withChosenId,
    remember: added.remember,
  };
  let outcome: RunOutcome<Outcome>;
  try {
    outcome = await runPipeline(job, { ...options, onlyFailed }, deps, target);
  } finally {
    await memory.close();
  }
  await added.sayAfter(outcome.remembered, options.dryRun ?? false, deps);
  return outcome.exitCode;
}

/** The collections to add (pipeline/collection-input.ts): the file's, or one from the flags. */
export async function collectionAddInput(
  given: Pick<CollectionAddOptions, 'file' | 'ignoreUnknownColumns' | 'sheet' | 'hiddenRows' | 'encoding'> &
    InputFlagOptions &
    Parameters<typeof collectionsToAdd>[2],
  options: GlobalOptions,
  deps: CommandDeps,
): ReturnType<typeof collectionsToAdd> {
  // Taken by the table: `runs show` hands over every option the run kept (--report, --sync-dir...), none a field.
  const [fieldFlags] = takeTableFlags(given, COLLECTION_FIELD_OPTIONS);
  const [read] = takeTableFlags(given, WHOLE_FILE_OPTIONS);
  const { file, profile, baseUrl } = given;
  return collectionsToAdd(file, { ...read, profile, baseUrl }, fieldFlags, options, deps);
}

/** The run's input read again by `runs show`. */
export const rerunInput: RerunInput = async (options, deps) =>
  collectionAddInput(options as never, options as GlobalOptions, deps);
