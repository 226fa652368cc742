import { describe, it, expect } from 'vitest';
import { validateUser, roleRequiredProblem } from '../../src/domain/user.js';
import type { Problem } from '../../src/domain/problem.js';

const valid = { ExternalId: 'u-001', FirstName: 'Ann', LastName: 'Lee' };

function problemsOf(input: unknown, context?: { isCreate?: boolean }): Problem[] {
  const result = validateUser(input, context);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.value)}`);
  return result.problems;
}

function expectProblem(input: Record<string, unknown>, field: string, code: number | null): void {
  const problems = problemsOf({ ...valid, ...input });
  expect(problems).toContainEqual(expect.objectContaining({ field, code }));
}

describe('validateUser: numbered codes', () => {
  const cases: [string, Record<string, unknown>, string, number | null][] = [
    ['206 ExternalId missing', { ExternalId: undefined }, 'ExternalId', 206],
    ['206 ExternalId empty', { ExternalId: '' }, 'ExternalId', 206],
    ['206 ExternalId null', { ExternalId: null }, 'ExternalId', 206],
    ['218 ExternalId over 64', { ExternalId: 'a'.repeat(65) }, 'ExternalId', 218],
    ['219 ExternalId bad chars', { ExternalId: 'a b' }, 'ExternalId', 219],
    ['219 ExternalId with dot', { ExternalId: 'a.b' }, 'ExternalId', 219],
    ['209 Email invalid', { Email: 'not-an-address' }, 'Email', 209],
    ['209 Email two @', { Email: 'a@b@c.com' }, 'Email', 209],
    ['209 Email undotted domain', { Email: 'a@localhost' }, 'Email', 209],
    ['209 Email with space', { Email: 'a b@c.com' }, 'Email', 209],
    ['209 Email over 100', { Email: `${'a'.repeat(95)}@ex.com` }, 'Email', 209],
    ['210 FirstName empty', { FirstName: '' }, 'FirstName', 210],
    ['210 FirstName blank', { FirstName: '   ' }, 'FirstName', 210],
    ['211 FirstName over 500', { FirstName: 'x'.repeat(501) }, 'FirstName', 211],
    ['212 LastName null', { LastName: null }, 'LastName', 212],
    ['213 LastName over 500', { LastName: 'x'.repeat(501) }, 'LastName', 213],
    ['220 CellularPhone', { CellularPhone: '1'.repeat(51) }, 'CellularPhone', 220],
    ['221 PhoneNumber', { PhoneNumber: '1'.repeat(51) }, 'PhoneNumber', 221],
    ['222 AddressLine1', { AddressLine1: 'x'.repeat(501) }, 'AddressLine1', 222],
    ['223 AddressLine2', { AddressLine2: 'x'.repeat(501) }, 'AddressLine2', 223],
    ['224 PostalCode', { PostalCode: 'x'.repeat(51) }, 'PostalCode', 224],
    ['225 PostalAddress', { PostalAddress: 'x'.repeat(501) }, 'PostalAddress', 225],
    ['226 UserName with space', { UserName: 'ann lee' }, 'UserName', 226],
    ['226 UserName with tab', { UserName: 'ann\tlee' }, 'UserName', 226],
    ['226 UserName over 50', { UserName: 'a'.repeat(51) }, 'UserName', 226],
    ['227 Company', { Company: 'x'.repeat(101) }, 'Company', 227],
    ['228 City', { City: 'x'.repeat(51) }, 'City', 228],
    ['229 State', { State: 'x'.repeat(51) }, 'State', 229],
    ['230 CountryCode', { CountryCode: 'x'.repeat(21) }, 'CountryCode', 230],
    ['231 SynchronizationKey', { SynchronizationKey: 'not-a-guid' }, 'SynchronizationKey', 231],
    [
      '231 SynchronizationKey one brace',
      { SynchronizationKey: '{3f2504e0-4f89-11d3-9a0c-0305e82c3301' },
      'SynchronizationKey',
      231,
    ],
    ['234 Labels over 20', { Labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, 'Labels', 234],
    ['235 Label empty', { Labels: ['ok', '  '] }, 'Labels[1]', 235],
    ['235 Label over 100', { Labels: ['x'.repeat(101)] }, 'Labels[0]', 235],
    ['235 Label not a string', { Labels: [5] }, 'Labels[0]', 235],
    ['236 Labels duplicate', { Labels: ['a', 'b', 'a'] }, 'Labels[2]', 236],
    ['236 Labels duplicate after trim', { Labels: ['a', ' a '] }, 'Labels[1]', 236],
    [
      '236 Labels duplicate in a long list',
      { Labels: [...Array.from({ length: 11 }, (_, i) => `l${i}`), ' l3'] },
      'Labels[11]',
      236,
    ],
    [
      '237 over 100 IPs',
      { AllowedIpAddresses: Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`) },
      'AllowedIpAddresses',
      237,
    ],
    ['238 bad IP', { AllowedIpAddresses: ['10.0.0.1', '300.1.1.1'] }, 'AllowedIpAddresses[1]', 238],
    ['238 mixed family range', { AllowedIpAddresses: ['10.0.0.1-::1'] }, 'AllowedIpAddresses[0]', 238],
    ['238 reversed range', { AllowedIpAddresses: ['10.0.0.9-10.0.0.1'] }, 'AllowedIpAddresses[0]', 238],
    ['238 CIDR prefix too long', { AllowedIpAddresses: ['10.0.0.0/33'] }, 'AllowedIpAddresses[0]', 238],
    ['239 duplicate IP', { AllowedIpAddresses: ['::1', '0:0::1'] }, 'AllowedIpAddresses[1]', 239],
    ['242 null hierarchy', { Hierarchies: [{ ExternalId: 'H-1' }, null] }, 'Hierarchies[1]', 242],
    [
      '243 duplicate hierarchy',
      { Hierarchies: [{ ExternalId: 'H-1' }, { ExternalId: 'H-1', Action: 'DELETE' }] },
      'Hierarchies[1].ExternalId',
      243,
    ],
    [
      '244 bad action',
      { Hierarchies: [{ ExternalId: 'H-1' }, { ExternalId: 'H-2', Action: 'REMOVE' }] },
      'Hierarchies[1].Action',
      244,
    ],
    ['245 Photo not a URL', { Photo: 'me.png' }, 'Photo', 245],
    ['245 Photo ftp', { Photo: 'ftp://ex.com/me.png' }, 'Photo', 245],
    ['246 DateOfBirth format', { DateOfBirth: '01/02/1990' }, 'DateOfBirth', 246],
    ['246 DateOfBirth not a date', { DateOfBirth: '1990-02-30' }, 'DateOfBirth', 246],
    ['246 DateOfBirth compact not a date', { DateOfBirth: '19901301' }, 'DateOfBirth', 246],
    ['247 Password short', { Password: 'abcd' }, 'Password', 247],
    ['247 Password long', { Password: 'x'.repeat(501) }, 'Password', 247],
    [
      '249 adjustment over 999',
      { SpecialNeeds: true, ReasonableAdjustmentPercentage: 1000 },
      'ReasonableAdjustmentPercentage',
      249,
    ],
    [
      '249 adjustment negative',
      { SpecialNeeds: true, ReasonableAdjustmentPercentage: -1 },
      'ReasonableAdjustmentPercentage',
      249,
    ],
    [
      '249 adjustment fraction',
      { SpecialNeeds: true, ReasonableAdjustmentPercentage: 12.5 },
      'ReasonableAdjustmentPercentage',
      249,
    ],
    [
      '250 adjustment without SpecialNeeds',
      { ReasonableAdjustmentPercentage: 20 },
      'ReasonableAdjustmentPercentage',
      250,
    ],
    [
      '250 adjustment 0 with SpecialNeeds false',
      { SpecialNeeds: false, ReasonableAdjustmentPercentage: 0 },
      'ReasonableAdjustmentPercentage',
      250,
    ],
  ];
  for (const [name, input, field, code] of cases) {
    it(name, () => expectProblem(input, field, code));
  }

  it('counts length in code points, not UTF-16 units', () => {
    // 50 emoji are 100 UTF-16 units but 50 characters: allowed for City (50).
    expect(validateUser({ ...valid, City: '😀'.repeat(50) }).ok).toBe(true);
    expectProblem({ City: '😀'.repeat(51) }, 'City', 228);
  });

  it('Password problems never carry the password', () => {
    const problems = problemsOf({ ...valid, Password: 'abc' });
    expect(JSON.stringify(problems)).not.toContain('abc"');
    expect(problems[0]?.message).not.toContain('abc');
  });

  it('240 only on create, through the shared helper', () => {
    expect(validateUser(valid).ok).toBe(true);
    const problems = problemsOf(valid, { isCreate: true });
    expect(problems).toEqual([roleRequiredProblem()]);
    expect(roleRequiredProblem()).toMatchObject({ field: 'Role', code: 240 });
    expect(validateUser({ ...valid, Role: 'Candidate' }, { isCreate: true }).ok).toBe(true);
  });
});

describe('validateUser: unnumbered conditions', () => {
  it('names an unknown field and suggests the right case', () => {
    const problems = problemsOf({ ...valid, firstname: 'x', Nickname: 'y' });
    expect(problems).toContainEqual(expect.objectContaining({ field: 'firstname', code: null }));
    expect(problems.find((p) => p.field === 'firstname')?.message).toContain('FirstName');
    expect(problems).toContainEqual(expect.objectContaining({ field: 'Nickname', code: null }));
  });

  it('an unknown field inside a hierarchy entry carries its path', () => {
    expectProblem({ Hierarchies: [{ ExternalId: 'H-1', IsCoordinater: true }] }, 'Hierarchies[0].IsCoordinater', null);
  });

  it('a hierarchy without ExternalId, or with a non-boolean flag', () => {
    expectProblem({ Hierarchies: [{ IsCoordinator: true }] }, 'Hierarchies[0].ExternalId', null);
    expectProblem(
      { Hierarchies: [{ ExternalId: 'H', IsAdministrator: 'yes' }] },
      'Hierarchies[0].IsAdministrator',
      null,
    );
  });

  it('type errors name the field', () => {
    expectProblem({ PostalCode: 12345 }, 'PostalCode', null);
    expectProblem({ SpecialNeeds: 'true' }, 'SpecialNeeds', null);
    expectProblem({ Labels: 'a|b' }, 'Labels', null);
    expectProblem({ Hierarchies: { ExternalId: 'H' } }, 'Hierarchies', null);
  });

  it('a non-object record is one problem', () => {
    for (const input of [null, 'x', [valid], 5]) {
      expect(problemsOf(input)).toEqual([expect.objectContaining({ code: null })]);
    }
  });

  it('no 250 when SpecialNeeds itself is invalid', () => {
    const problems = problemsOf({ ...valid, SpecialNeeds: 'maybe', ReasonableAdjustmentPercentage: 20 });
    expect(problems.map((p) => p.code)).not.toContain(250);
  });
});

describe('validateUser: all problems of a record', () => {
  it('reports every problem, not only the first', () => {
    const problems = problemsOf({
      ExternalId: 'bad id!',
      FirstName: '',
      Email: 'x',
      UserName: 'has space',
      Labels: ['a', 'a'],
      Hierarchies: [null, { ExternalId: 'H', Action: 'nope' }],
      ReasonableAdjustmentPercentage: 5,
      Extra: 1,
    });
    const pairs = problems.map((p) => `${p.field}:${p.code}`).sort();
    expect(pairs).toEqual(
      [
        'ExternalId:219',
        'FirstName:210',
        'LastName:212',
        'Email:209',
        'UserName:226',
        'Labels[1]:236',
        'Hierarchies[0]:242',
        'Hierarchies[1].Action:244',
        'ReasonableAdjustmentPercentage:250',
        'Extra:null',
      ].sort(),
    );
  });
});

describe('validateUser: wire values', () => {
  it('normalises and drops unset fields', () => {
    const result = validateUser({
      ...valid,
      Email: 'ann@example.com',
      Role: '',
      Photo: null,
      DateOfBirth: '19900215',
      SpecialNeeds: true,
      ReasonableAdjustmentPercentage: 0,
      SynchronizationKey: '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}',
      Labels: [' group-a ', 'B'],
      AllowedIpAddresses: ['10.0.0.1', '10.0.0.0/8', '10.0.0.1-10.0.0.9', '2001:db8::/32', '::1-::ff', ' 192.168.1.1 '],
      Password: 'secret1',
      Hierarchies: [{ ExternalId: 'H-1', IsCoordinator: true, Action: 'delete' }, { ExternalId: 'H-2' }],
    });
    expect(result).toEqual({
      ok: true,
      value: {
        ExternalId: 'u-001',
        FirstName: 'Ann',
        LastName: 'Lee',
        Email: 'ann@example.com',
        DateOfBirth: '1990-02-15',
        SpecialNeeds: true,
        ReasonableAdjustmentPercentage: 0,
        SynchronizationKey: '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}',
        Labels: ['group-a', 'B'],
        AllowedIpAddresses: ['10.0.0.1', '10.0.0.0/8', '10.0.0.1-10.0.0.9', '2001:db8::/32', '::1-::ff', '192.168.1.1'],
        Password: 'secret1',
        Hierarchies: [{ ExternalId: 'H-1', IsCoordinator: true, Action: 'DELETE' }, { ExternalId: 'H-2' }],
      },
    });
  });

  it('accepts the edges of every limit', () => {
    const result = validateUser({
      ExternalId: `${'a'.repeat(60)}_-@9`,
      FirstName: 'x'.repeat(500),
      LastName: 'x'.repeat(500),
      UserName: 'u'.repeat(50),
      Password: '12345',
      Labels: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100, 'x')),
      SpecialNeeds: true,
      ReasonableAdjustmentPercentage: 999,
      DateOfBirth: '2000-02-29',
      Photo: 'https://cdn.example.com/p/ann.png?size=2',
    });
    expect(result.ok).toBe(true);
  });

  it('labels compare case-sensitively', () => {
    expect(validateUser({ ...valid, Labels: ['a', 'A'] }).ok).toBe(true);
  });
});
