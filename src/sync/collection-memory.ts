/** `collection add`'s sync memory: each collection's fields, so `--existing ok` tells its own on an 810. */
import type { CollectionRequest } from '../domain/types.js';
import { ErrorCode } from '../domain/codes.js';
import type { Outcome } from '../pipeline/record-job.js';
import { describeTarget } from '../report/report-writers.js';
import { canonicalJson, type MemoryEntry } from './memory-lines.js';
import { SentMemory } from './sent-memory.js';
import { byKey } from '../domain/key-order.js';

/** The longest value a difference quotes before it is cut. */
const QUOTED_MAX = 80;

/** A request's fields but its ExternalId (the memory's key), each as canonical JSON. */
export function collectionFields(request: CollectionRequest): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(request).sort(byKey)) {
    if (name !== 'ExternalId' && value !== undefined) fields[name] = canonicalJson(value);
  }
  return fields;
}

/** `Title "Biology" then, "Biology 2027" now`: each field that differs, in name order. */
function fieldDifferences(then: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string[] {
  const quoted = (value: string | undefined) =>
    value === undefined ? 'not given' : value.length > QUOTED_MAX ? `${value.slice(0, QUOTED_MAX - 1)}…` : value;
  const names = [...new Set([...Object.keys(then), ...Object.keys(now)])].sort();
  return names
    .filter((name) => then[name] !== now[name])
    .map((name) => `${name} ${quoted(then[name])} then, ${quoted(now[name])} now`);
}

export class CollectionMemory extends SentMemory<CollectionRequest> {
  protected override keptBeside(_id: string, payload: CollectionRequest): Omit<MemoryEntry, 'digest' | 'run'> {
    return { fields: collectionFields(payload) };
  }

  /**
   * For a collection unknown to the memory, its fields before the request goes, tentative (docs/sync.md, "A request
   * cut short"). A known entry is never replaced: a collection cannot be updated.
   */
  protected override intentOf(payload: CollectionRequest, entry: MemoryEntry | undefined, run: string) {
    return entry === undefined ? { digest: '', run, fields: collectionFields(payload), tentative: true } : undefined;
  }

  /** --existing ok (docs/sync.md, "Collections"): an 810 for a collection examctl sent with these fields is ok. */
  existing(payload: CollectionRequest, outcome: Outcome, existing: 'fail' | 'ok'): Outcome {
    if (
      existing !== 'ok' ||
      outcome.status !== 'failed' ||
      !outcome.errors.some((problem) => problem.code === ErrorCode.CollectionExternalIdTaken)
    )
      return outcome;
    const id = payload.ExternalId ?? '';
    // What the memory held before the request went (`intend`); a dry run writes no intent: what it holds now.
    const entry = this.entriesBefore.has(payload)
      ? (this.entriesBefore.get(payload) ?? undefined)
      : this.memory?.entries.get(id);
    const target = this.memory === undefined ? 'this target' : describeTarget(this.memory.target);
    const api = 'the API cannot update a collection (POST /collections only creates one, and nothing reads one back)';
    const adopt = `examctl synced adopt-collections --file F records it as examctl's (F: the file this run read or, from flags, a .json file holding ${JSON.stringify(payload)})`;
    if (entry?.fields === undefined) {
      const where = this.placed === undefined ? '' : ` (${this.placed.name})`;
      return failed(
        `collection ${id} exists on ${target}, and examctl has no record of sending it there${where}, so it cannot tell whether it holds these fields: ${api}. ` +
          `Check it on the platform: if examctl made it (its memory lost), ${adopt}; if not, give this one another ExternalId`,
      );
    }
    // An intent (its answer lost): whose collection it is, and its fields, are unknown.
    if (entry.digest === '') {
      return failed(
        `collection ${id} exists on ${target}; examctl sent it there in run ${entry.run} with no definite answer, so it cannot tell whether its request made it ` +
          `or someone else did (with fields of their own): ${api}. Check it on the platform; if it is this one, ${adopt}`,
      );
    }
    const differences = fieldDifferences(entry.fields, collectionFields(payload));
    if (differences.length === 0)
      return {
        status: 'ok',
        errors: [],
        action: 'unchanged',
        note: `exists as examctl sent it (run ${entry.run}): not created again (--existing ok)`,
      };
    return failed(
      `collection ${id} exists on ${target} with other fields than examctl sent it (run ${entry.run}): ${differences.join('; ')}; ` +
        `${api}. Change it on the platform, or give this one another ExternalId`,
    );
  }
}

function failed(message: string): Outcome {
  return { status: 'failed', errors: [{ field: 'ExternalId', code: ErrorCode.CollectionExternalIdTaken, message }] };
}
