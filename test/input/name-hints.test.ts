import { describe, expect, it } from 'vitest';
import { closestName, editDistance, listWithCount } from '../../src/input/name-hints.js';
import { counted } from '../../src/formats/number-format.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['email', 'email', 0],
    ['emial', 'email', 1],
    ['emal', 'email', 1],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3],
  ])('%s -> %s is %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
    expect(editDistance(b, a)).toBe(expected);
  });

  it('stops at the limit', () => {
    expect(editDistance('aaaaaaaa', 'bbbbbbbb', 2)).toBe(3);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });
});

describe('closestName', () => {
  const fields = ['ExternalId', 'FirstName', 'LastName', 'Email', 'UserName'];
  it('suggests the field a misspelt header name resembles, compared as header names are', () => {
    expect(closestName('Emial', fields)).toBe('Email');
    expect(closestName('first_nme', fields)).toBe('FirstName');
    expect(closestName('External-ID', fields)).toBe('ExternalId');
  });
  it('suggests nothing for a name far from every field', () => {
    expect(closestName('Department', fields)).toBeUndefined();
    expect(closestName('Em', fields)).toBeUndefined();
    expect(closestName('', fields)).toBeUndefined();
  });
});

describe('listWithCount', () => {
  it('keeps a short list whole and cuts a long one with a count of the rest', () => {
    expect(listWithCount(['a', 'b'])).toBe('a, b');
    const names = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
    expect(listWithCount(names)).toBe('c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, … and 9,990 more');
  });
  it('counts with the right noun (formats/number-format.ts counted)', () => {
    expect(counted(1, 'column')).toBe('1 column');
    expect(counted(10_000, 'column')).toBe('10,000 columns');
  });
});
