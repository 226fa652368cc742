/**
 * zod schemas for the request bodies, for code that composes zod (the local HTTP server's body
 * parsing, say). They wrap the rule tables rather than restating them: one rule, one place.
 * Each issue carries the API code in `params.code` and the problem's field in `path`.
 */
import { z } from 'zod';
import type { Problem, Validation } from './problem.js';
import { validateUser } from './user.js';
import { validateScheduleRequest } from './schedule.js';
import { validateCollection } from './collection.js';
import type { CollectionRequest, ScheduleRequest, UserRequest } from './types.js';

/** `Candidates[3].Email` -> ['Candidates', 3, 'Email']. */
export function fieldPathSegments(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.split('.')) {
    if (part === '') continue;
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (m === null) {
      out.push(part);
      continue;
    }
    if (m[1] !== '') out.push(m[1] as string);
    for (const idx of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

function fromValidator<T>(validate: (input: unknown) => Validation<T>) {
  return z.unknown().transform((input, ctx): T => {
    const result = validate(input);
    if (result.ok) return result.value;
    for (const p of result.problems) {
      ctx.issues.push({ code: 'custom', message: p.message, input, path: fieldPathSegments(p.field), params: { code: p.code } });
    }
    return z.NEVER;
  });
}

export const userRequestSchema = fromValidator<UserRequest>((v) => validateUser(v));
export const scheduleRequestSchema = fromValidator<ScheduleRequest>(validateScheduleRequest);
export const collectionRequestSchema = fromValidator<CollectionRequest>(validateCollection);

/** Problems back from a ZodError produced by these schemas (or any zod schema: code null). */
export function problemsFromZodIssues(issues: readonly z.core.$ZodIssue[]): Problem[] {
  return issues.map((issue) => {
    const params = (issue as { params?: { code?: unknown } }).params;
    const code = typeof params?.code === 'number' ? (params.code as Problem['code']) : null;
    const field = issue.path
      .map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? String(seg) : `.${String(seg)}`))
      .join('');
    return { field, code, message: issue.message };
  });
}
