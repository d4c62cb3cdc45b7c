// Query parsing: closed key sets, no repeats, '+' as space, %2B as plus, strict percent-decoding.
import { describe, expect, it } from 'vitest';
import { HostError } from '../../../src/host/errors.js';
import { parseQuery, requiredQueryValue } from '../../../src/host/http/query.js';

const KEYS = ['space', 'definitionVersion'];

describe('parseQuery', () => {
  it('decodes values', () => {
    const query = parseQuery('space=my+space%2Fnot&definitionVersion=1.0.0%2Bbuild', KEYS);
    expect(query.get('space')).toBe('my space/not');
    expect(query.get('definitionVersion')).toBe('1.0.0+build');
  });

  it.each([
    ['an unknown key', 'group=x'],
    ['a repeated key', 'space=a&space=b'],
    ['a malformed escape', 'space=%E0%A4%A'],
    ['an encoded lone surrogate', 'space=%ED%A0%80'],
  ])('refuses %s', (_label, raw) => {
    expect(() => parseQuery(raw, KEYS)).toThrow(HostError);
  });

  it('refuses a missing required value and one that fails its grammar', () => {
    const grammar = { test: (value: string) => value.length > 0, describe: 'non-empty' };
    expect(() => requiredQueryValue(parseQuery('', KEYS), 'space', grammar)).toThrow(/required/);
    expect(() => requiredQueryValue(parseQuery('space=', KEYS), 'space', grammar)).toThrow(/non-empty/);
  });
});
