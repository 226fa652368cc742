import type { IntegrationApi } from '../port/integration-api.js';
import { problemsFrom } from '../api/envelope-errors.js';
import { COLLECTION_COLUMNS } from '../domain/columns.js';
import { coerceAndValidateCollection } from '../domain/coercion.js';
import { validateCollection } from '../domain/collection.js';
import { collectionForSending } from '../domain/api-text-doubts.js';
import { COLLECTION_ID_RULE } from '../domain/one-id-per-file.js';
import type { CollectionRequest, CollectionResponseContent } from '../domain/types.js';
import { idOf } from '../domain/record-id.js';
import type { InputRecord } from '../input/record.js';
import { say } from '../formats/terminal-text.js';
import { formatCount } from '../formats/number-format.js';
import { promptIoOf, promptsOff, type CommandDeps } from '../context/command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import type { CollectionFieldFlags } from '../flags/collection-fields.js';
import { unitPerRecord, type Outcome, type RecordJob, type Unit } from './record-job.js';
import { outcomeOf } from './service-answer.js';
import { readInput, sourceRowsOf, type InputFlagOptions, type SheetFlagOptions } from './command-input.js';

/* `examctl collection add`: its collections (a file's, or one from the flags), what is sent, what is said after. */

const FLAGS_SOURCE = '<flags>';

/** The collections to add, from the file or the flags (the title asked when allowed), and their units. */
export async function collectionsToAdd(
  file: string | undefined,
  read: SheetFlagOptions & InputFlagOptions & { ignoreUnknownColumns?: boolean | undefined },
  fieldFlags: CollectionFieldFlags,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<Pick<RecordJob<CollectionRequest>, 'records' | 'units' | 'unitCount' | 'readIds'>> {
  // One reader for every pass, as user sync's.
  let records: AsyncIterable<InputRecord> | undefined;
  return {
    records:
      file !== undefined
        ? () =>
            (records ??= readInput(file, deps, {
              ...read,
              columns: COLLECTION_COLUMNS,
              ignoreUnknownColumns: read.ignoreUnknownColumns ?? false,
              command: 'collection add',
            }))
        : await flagRecord(fieldFlags, options, deps),
    ...unitPerRecord(collectionUnit, COLLECTION_ID_RULE),
  };
}

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

async function flagRecord(
  flags: CollectionFieldFlags,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<() => AsyncIterable<InputRecord>> {
  let title = flags.title;
  if (title === undefined) {
    const { missingValue, promptCollectionTitle } = await import('../terminal/prompts.js');
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

/** One POST /collections; an ok answer made the collection, and names the id it got. */
export async function sendCollection(
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

/** A run's collections without an ExternalId, named by examctl, and what the run says of them and of its one collection. */
export class CollectionsAdded {
  private named = 0;

  constructor(private readonly fromFile: boolean) {}

  /** No ExternalId: examctl names it, so a resend after a lost answer is not a second collection (docs/runs.md). */
  readonly withChosenId = (collection: CollectionRequest, id: string): CollectionRequest | undefined => {
    if (collection.ExternalId !== undefined && collection.ExternalId !== '') return undefined;
    this.named += 1;
    return { ...collection, ExternalId: id };
  };

  /** One collection from flags or a prompt is kept, to say which id it got; a file's are not. */
  readonly remember = (_unit: unknown, _collection: CollectionRequest, outcome: Outcome): Outcome | undefined =>
    this.fromFile ? undefined : outcome;

  /** After the report: the note on named collections, and the one collection's id. */
  async sayAfter(remembered: readonly Outcome[], dryRun: boolean, deps: CommandDeps): Promise<void> {
    const { named, fromFile } = this;
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
    // One collection from flags or a prompt: say which id it got (the service may have chosen it).
    const last = remembered.at(-1);
    if (last?.status === 'ok' && last.id !== undefined) {
      await say(deps, `collection ${last.id} ${dryRun ? 'would be ' : ''}${last.action ?? 'created'}`);
    } else if (last?.status === 'ok' && last.action === 'created' && dryRun) {
      await say(deps, 'a collection would be created: examctl names it when the real run sends it');
    }
  }
}
