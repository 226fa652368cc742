import { describe, it, expect, expectTypeOf } from 'vitest';
import {
  booleanRule,
  enumRule,
  integerRule,
  ruleTable,
  stringRule,
  validateFields,
  type RecordOf,
} from '../../src/domain/field-rules.js';
import type { Problem } from '../../src/domain/problem.js';
import type {
  Candidate,
  CollectionRequest,
  HierarchyMembership,
  IdTitle,
  ScheduleRequest,
  UserRequest,
} from '../../src/domain/types.js';

// The request types are their rule tables read as types: tsc checks the expectTypeOf lines
// (test/ is in tsconfig), the run checks that the values validateFields returns fit them.
const TABLE = ruleTable('probe', [
  stringRule('Id', { max: 8, required: null }),
  stringRule('Note', { max: 8 }),
  booleanRule('Flag'),
  enumRule('Mode', ['ON', 'OFF']),
  integerRule('Count', { min: 0, max: 9, code: null }),
]);
type Probe = RecordOf<typeof TABLE>;

describe('a rule table is the type of its records (RecordOf)', () => {
  it('reads each rule as the value its check returns, required where the rule is', () => {
    expectTypeOf<Probe['Id']>().toEqualTypeOf<string>();
    expectTypeOf<Probe['Note']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Probe['Flag']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<Probe['Mode']>().toEqualTypeOf<'ON' | 'OFF' | undefined>();
    expectTypeOf<Probe['Count']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<keyof Probe>().toEqualTypeOf<'Id' | 'Note' | 'Flag' | 'Mode' | 'Count'>();
    const problems: Problem[] = [];
    const record: Probe | null = validateFields(
      { Id: 'a', Mode: ' on ', Flag: true, Count: 3, Note: '' },
      TABLE,
      '',
      problems,
    );
    expect(problems).toEqual([]);
    expect(record).toEqual({ Id: 'a', Mode: 'ON', Flag: true, Count: 3 });
  });

  it('keeps a required field required: a record without it is a problem and not the type', () => {
    const problems: Problem[] = [];
    validateFields({ Note: 'n' }, TABLE, '', problems);
    expect(problems.map((p) => p.field)).toEqual(['Id']);
    // @ts-expect-error Id is required by its rule
    const missing: Probe = { Note: 'n' };
    expect(missing).toEqual({ Note: 'n' });
  });

  it('gives the request types the literal unions and nested records their tables declare', () => {
    expectTypeOf<UserRequest['ExternalId']>().toEqualTypeOf<string>();
    expectTypeOf<UserRequest['Hierarchies']>().toEqualTypeOf<HierarchyMembership[] | undefined>();
    expectTypeOf<HierarchyMembership['Action']>().toEqualTypeOf<'UPSERT' | 'DELETE' | undefined>();
    expectTypeOf<Candidate['SpecialNeeds']>().toEqualTypeOf<'true' | 'false' | undefined>();
    expectTypeOf<ScheduleRequest['Workflow']>().toEqualTypeOf<'DEFAULT' | 'EXTERNAL_ATTEMPTS' | undefined>();
    expectTypeOf<ScheduleRequest['Candidates']>().toEqualTypeOf<Candidate[]>();
    expectTypeOf<CollectionRequest['Taxonomies']>().toEqualTypeOf<IdTitle[] | undefined>();
    expectTypeOf<IdTitle['ExternalId']>().toEqualTypeOf<string>();
    // @ts-expect-error LastName is required by USER_TABLE
    const user: UserRequest = { ExternalId: 'u-1', FirstName: 'Ann' };
    expect(user.ExternalId).toBe('u-1');
  });
});
