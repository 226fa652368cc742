import { describe, expect, it } from 'vitest';
import { capProblems, errorsOf, problemsFrom } from '../../src/api/envelope-errors.js';
import { failureProblems } from '../../src/pipeline/service-answer.js';

describe('errorsOf', () => {
  it('reads no problems from null, a missing Errors or a non-object', () => {
    expect(errorsOf({ Content: 1, Success: true, Errors: null })).toEqual([]);
    expect(errorsOf({ Content: 1, Success: true })).toEqual([]);
    expect(errorsOf(null)).toEqual([]);
    expect(errorsOf('boom')).toEqual([]);
  });

  it('reads a plain string and an array of strings', () => {
    expect(errorsOf({ Errors: 'Bad request' })).toEqual([{ field: '', code: null, message: 'Bad request' }]);
    expect(errorsOf({ Errors: ['a', 'b'] }).map((p) => p.message)).toEqual(['a', 'b']);
  });

  it('reads the engine shape and camelCase objects, with numeric-string codes', () => {
    expect(errorsOf({ Errors: [{ Code: 209, Message: 'Email invalid', Field: 'Email' }] })).toEqual([
      { field: 'Email', code: 209, message: 'Email invalid' },
    ]);
    expect(errorsOf({ errors: [{ code: '810', message: 'taken' }] })).toEqual([
      { field: '', code: 810, message: 'taken' },
    ]);
  });

  it('reads per-user and per-group entries (Error, UserExtId, ExternalId)', () => {
    expect(errorsOf({ Errors: [{ UserExtId: 'inv-9', Code: 319, Error: 'not an invigilator' }] })).toEqual([
      { field: '', code: 319, message: 'inv-9: not an invigilator' },
    ]);
    expect(problemsFrom([{ ExternalId: 'H-9', Code: 131 }])).toEqual([
      { field: '', code: 131, message: 'error for H-9' },
    ]);
  });

  it('reads a field map (model state) and keeps unknown object entries readable', () => {
    expect(errorsOf({ Errors: { Email: ['is invalid'], FirstName: 'required' } })).toEqual([
      { field: 'Email', code: null, message: 'is invalid' },
      { field: 'FirstName', code: null, message: 'required' },
    ]);
    expect(errorsOf({ Errors: [{ weird: 1 }] })[0]!.message).toBe('{"weird":1}');
  });
});

describe("examctl's own problems of an answer", () => {
  it('a list cut at 100 ends with one 9029 entry counting the rest', () => {
    const many = Array.from({ length: 130 }, (_, i) => ({ field: '', code: 131 as const, message: `H-${i}` }));
    const cut = capProblems(many);
    expect(cut).toHaveLength(101);
    expect(cut[100]).toMatchObject({ code: 9029 });
    expect(cut[100]!.message).toContain('30');
  });

  it('Success: false without any error is one 9028 problem naming the HTTP status', () => {
    const [only, ...rest] = failureProblems({ status: 409, envelope: { Success: false, Content: null, Errors: [] } });
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ field: '', code: 9028 });
    expect(only!.message).toContain('409');
  });
});
