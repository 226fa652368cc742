/**
 * docs/interpretations.md, "One file, one id": within one input an id appears once (a user's
 * ExternalId, a collection's ExternalId, an invigilator id, a sitting's ScheduleExtId +
 * CandidateExtId). A later record with the same id fails locally, naming the earlier line, so
 * nothing is sent twice in one run and no race between concurrent requests decides which wins.
 * No API code says this (it is a rule about the file, not the request): the problem's code is
 * null, as for the other rules of a file (rows of one schedule that disagree). Pure.
 */
import type { Problem, Validation } from './problem.js';

/** Where a record was read (structurally the input's SourceRef). */
export interface IdPlace {
  file: string;
  line: number;
}

export interface IdRule {
  /** The field the problem is on and the message names (`ExternalId`). */
  field: string;
  /** Compare ignoring case: user ids, which the service also treats as one when only the case differs (233). */
  ignoreCase: boolean;
}

/** User ids (ExternalId, invigilator ids, CandidateExtId) collide ignoring case; collection ids do not. */
export const USER_ID_RULE: IdRule = { field: 'ExternalId', ignoreCase: true };
export const COLLECTION_ID_RULE: IdRule = { field: 'ExternalId', ignoreCase: false };
export const INVIGILATOR_ID_RULE: IdRule = { field: 'UserExtId', ignoreCase: true };
/** A candidate within one schedule's rows (one candidate may sit several schedules). */
export const CANDIDATE_ID_RULE: IdRule = { field: 'CandidateExtId', ignoreCase: true };

/**
 * The ids one read of one input has met so far: make one per read (a real run reads its file twice).
 * Held compactly, since a dry run of millions of rows holds them all (issue 37): each
 * id maps to one number, its line and the index of its file (`line + file * 2^32`, a small
 * integer for the first file, so nothing is allocated per row); the id as first spelled only when
 * it differs from its key (another letter case).
 */
export class IdsOfOneInput {
  private readonly first = new Map<string, number>();
  private readonly files: string[] = [];
  private readonly spelled = new Map<string, string>();

  constructor(private readonly rule: IdRule) {}

  /**
   * The problem of a record whose id an earlier record of this input has; undefined, and the id
   * remembered with its place, when it is the first.
   */
  repeated(id: string | null, place: IdPlace): Problem | undefined {
    if (id === null) return undefined;
    const key = this.rule.ignoreCase ? id.toLowerCase() : id;
    const earlier = this.first.get(key);
    if (earlier === undefined) {
      this.first.set(key, place.line + this.fileIndex(place.file) * LINE_SPAN);
      if (key !== id) this.spelled.set(key, id);
      return undefined;
    }
    const file = this.files[Math.floor(earlier / LINE_SPAN)]!;
    const line = earlier % LINE_SPAN;
    const earlierId = this.spelled.get(key) ?? key;
    const where = file === place.file ? `line ${line}` : `${file} line ${line}`;
    const spelled = earlierId === id ? '' : ` (as ${earlierId})`;
    return { field: this.rule.field, code: null, message: `${this.rule.field} ${id} is also on ${where}${spelled}; an id appears once in one file` };
  }

  private fileIndex(file: string): number {
    // Almost always the one file, or the last one read.
    const last = this.files.length - 1;
    if (last >= 0 && this.files[last] === file) return last;
    const at = this.files.indexOf(file);
    if (at >= 0) return at;
    this.files.push(file);
    return this.files.length - 1;
  }
}

/** Lines per file in the packed place: far above any file's line count. */
const LINE_SPAN = 2 ** 32;

/** A validation with one more problem (the record fails whatever else it had). */
export function withProblem<T>(validation: Validation<T>, problem: Problem): Validation<T> {
  return { ok: false, problems: validation.ok ? [problem] : [...validation.problems, problem] };
}
