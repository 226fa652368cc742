import type { IntegrationApi } from '../../port/integration-api.js';
import { problemsFrom } from '../../api/envelope-errors.js';
import { COLLECTION_COLUMNS } from '../../domain/columns.js';
import { coerceAndValidateCollection } from '../../domain/coercion.js';
import { validateCollection } from '../../domain/collection.js';
import { collectionForSending } from '../../domain/api-text-doubts.js';
import { COLLECTION_ID_RULE } from '../../domain/one-id-per-file.js';
import type { CollectionRequest, CollectionResponseContent } from '../../domain/types.js';
import type { InputRecord } from '../../input/record.js';
import { promptIoOf, promptsOff, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { commandName } from '../command-declaration.js';
import type { RerunInput } from '../../pipeline/record-job.js';
import { unitPerRecord, type Outcome, type RecordJob, type RunOutcome, type Unit } from '../../pipeline/record-job.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { createdByLostAttempt, outcomeOf } from '../../pipeline/service-answer.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { COLLECTION_ADD, COLLECTION_FIELD_OPTIONS, type CollectionAddOptions } from './collection-add.options.js';
import { FILE_OPTIONS, WHOLE_FILE_OPTIONS } from './file-options.js';
import { takeTableFlags, type OptionsOf } from '../../flags/option-table.js';
import { readInput, sourceRowsOf, type InputFlagOptions } from '../../pipeline/command-input.js';
import { idOf } from '../../domain/record-id.js';
import { say } from '../../formats/terminal-text.js';
import { formatCount } from '../../formats/number-format.js';
import { CollectionMemory } from '../../sync/collection-memory.js';

const FLAGS_SOURCE = '<flags>';

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
  const fromFile = file !== undefined;
  // What examctl sent each target (docs/sync.md, "Collections"): fed by every real run, read by --existing ok.
  let named = 0;
  const memory = new CollectionMemory(
    'collections',
    { syncDir, runsDir: options.runsDir, dryRun: options.dryRun },
    deps,
    target,
    (collection) => collection,
  );
  const job: RecordJob<CollectionRequest, Outcome> = {
    command: commandName(COLLECTION_ADD),
    ...(await collectionAddInput({ file, ...input, ...globals, ...fields }, options, deps)),
    prepare: async () => void (await memory.open(existing === 'ok')),
    confirmAction: 'send',
    send: async (api, collection, callOptions) =>
      memory.existing(collection, await sendCollection(api, collection, callOptions), existing),
    ...memory.hooks(),
    // No ExternalId: examctl names it, so a resend after a lost answer is not a second collection (docs/runs.md).
    lostAttemptDid: createdByLostAttempt('/collections'),
    withChosenId: (collection, id) => {
      if (collection.ExternalId !== undefined && collection.ExternalId !== '') return undefined;
      named += 1;
      return { ...collection, ExternalId: id };
    },
    ...(fromFile ? {} : { remember: (_unit, _collection, outcome) => outcome }),
  };
  let outcome: RunOutcome<Outcome>;
  try {
    outcome = await runPipeline(job, { ...options, onlyFailed }, deps, target);
  } finally {
    await memory.close();
  }
  // As schedule push says of a schedule without an id: a second run makes a second collection.
  if (named > 0) {
    const none = fromFile
      ? `${formatCount(named)} of the file's collections ${named === 1 ? 'has' : 'have'} no ExternalId`
      : 'no --external-id';
    await say(
      deps,
      `note: ${none}: examctl names each, so running this again makes another one; give ${fromFile ? 'each an ExternalId' : 'the id printed below with --external-id <id>'} and --existing ok to leave it as it is instead.`,
    );
  }
  const { exitCode, remembered } = outcome;
  // One collection from flags or a prompt: say which id it got (the service may have chosen it).
  const last = remembered.at(-1);
  if (last?.status === 'ok' && last.id !== undefined) {
    await say(deps, `collection ${last.id} ${options.dryRun ? 'would be ' : ''}${last.action ?? 'created'}`);
  } else if (last?.status === 'ok' && last.action === 'created' && options.dryRun) {
    await say(deps, 'a collection would be created: examctl names it when the real run sends it');
  }
  return exitCode;
}

/** The collections to add, from the file or the flags (the title asked when allowed), and their units. */
export async function collectionAddInput(
  given: Pick<CollectionAddOptions, 'file' | 'ignoreUnknownColumns' | 'sheet' | 'hiddenRows' | 'encoding'> &
    InputFlagOptions &
    CollectionFieldFlags,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<Pick<RecordJob<CollectionRequest>, 'records' | 'units' | 'unitCount' | 'readIds'>> {
  // Taken by the table: `runs show` hands over every option the run kept (--report, --sync-dir...), none a field.
  const [fieldFlags] = takeTableFlags(given, COLLECTION_FIELD_OPTIONS);
  const [read] = takeTableFlags(given, WHOLE_FILE_OPTIONS);
  const { file, profile, baseUrl } = given;
  // One reader for every pass, as user sync's.
  let records: AsyncIterable<InputRecord> | undefined;
  return {
    records:
      file !== undefined
        ? () =>
            (records ??= readInput(file, deps, {
              ...read,
              profile,
              baseUrl,
              columns: COLLECTION_COLUMNS,
              ignoreUnknownColumns: read.ignoreUnknownColumns ?? false,
              command: 'collection add',
            }))
        : await flagRecord(fieldFlags, options, deps),
    ...unitPerRecord(collectionUnit, COLLECTION_ID_RULE),
  };
}

/** The run's input read again by `runs show`. */
export const rerunInput: RerunInput = async (options, deps) =>
  collectionAddInput(options as never, options as GlobalOptions, deps);

function collectionUnit(record: InputRecord): Unit<CollectionRequest> {
  // CSV cells are strings to coerce; JSON values are taken as typed. Valid, but wider than the API
  // text's words (an upper-case ExternalId): sent, with the warning (docs/domain-rules.md).
  const { prepared, warnings } = collectionForSending(
    record.fields,
    record.raw ? coerceAndValidateCollection : validateCollection,
  );
  const unit: Unit<CollectionRequest> = {
    source: record.source,
    id: idOf(record.fields, 'ExternalId'),
    prepared,
    rows: sourceRowsOf(record),
  };
  return warnings.length > 0 ? { ...unit, warnings } : unit;
}

/** The flags that give one collection's fields (COLLECTION_FIELD_OPTIONS). */
type CollectionFieldFlags = OptionsOf<typeof COLLECTION_FIELD_OPTIONS>;

async function flagRecord(
  flags: CollectionFieldFlags,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<() => AsyncIterable<InputRecord>> {
  let title = flags.title;
  if (title === undefined) {
    const { missingValue, promptCollectionTitle } = await import('../../terminal/prompts.js');
    const off = promptsOff(options, deps);
    if (off !== undefined) throw missingValue('--title (or --file)', off);
    title = await promptCollectionTitle(promptIoOf(deps));
  }
  const fields: Record<string, unknown> = { Title: title };
  if (flags.externalId !== undefined) fields.ExternalId = flags.externalId;
  if (flags.owner !== undefined) fields.Owner = flags.owner;
  if (flags.taxonomy?.length) fields.Taxonomies = flags.taxonomy.map((id) => ({ ExternalId: id }));
  if (flags.repository?.length) fields.ObjectiveRepositories = flags.repository.map((id) => ({ ExternalId: id }));
  const record: InputRecord = { source: { file: FLAGS_SOURCE, line: 1, index: 0 }, fields };
  return async function* () {
    yield record;
  };
}

async function sendCollection(
  api: IntegrationApi,
  collection: CollectionRequest,
  options: { dryRun?: boolean },
): Promise<Outcome> {
  const result = await api.addCollection(collection, options);
  const answered = outcomeOf<CollectionResponseContent>(result, (content) =>
    problemsFrom((content as { Errors?: unknown }).Errors),
  );
  // POST /collections only creates: an ok answer (a remote one says nothing of it) made the collection.
  const outcome: Outcome =
    answered.status !== 'failed' && answered.action === undefined && options.dryRun !== true
      ? { ...answered, action: 'created' }
      : answered;
  // The id the answer names: the one examctl chose (docs/runs.md), or the service's own.
  const id = result.envelope.Success ? result.envelope.Content?.ExternalId : undefined;
  return typeof id === 'string' && id !== '' ? { ...outcome, id } : outcome;
}
