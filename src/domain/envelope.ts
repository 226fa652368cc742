import type { ProblemCode } from './codes.js';

/** One entry of a failure envelope's Errors array, as the local engine writes it. */
export interface ApiErrorEntry {
  Code: ProblemCode | number;
  Message: string;
  Field?: string;
}

/**
 * The response envelope of every operation. A real server may send any shape of Errors
 * (docs/interpretations.md, "Tolerance (remote client)"), so readers must go through `errorsOf` in the API layer.
 */
export interface Envelope<T> {
  Content: T | null;
  Success: boolean;
  Errors: ApiErrorEntry[] | null | unknown;
}
