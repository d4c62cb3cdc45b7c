// Bearer tokens -> tenant and principal; the tokens file format.
import { describe, expect, it } from 'vitest';
import { TokenTable, parseTokensFile } from '../../src/host/auth.js';
import { HostError } from '../../src/host/errors.js';

const table = new TokenTable([{ token: 'secret-a', tenant: 'tenant-a', principal: 'alice' }]);

describe('TokenTable', () => {
  it('maps a bearer token to its caller, scheme case-insensitively', () => {
    expect(table.authenticate('Bearer secret-a', 'required')).toEqual({ tenant: 'tenant-a', principal: 'alice' });
    expect(table.authenticate('bearer secret-a', 'required')).toEqual({ tenant: 'tenant-a', principal: 'alice' });
  });

  it('refuses a missing header only where a caller is required, and an unknown token everywhere', () => {
    expect(() => table.authenticate(undefined, 'required')).toThrow(HostError);
    expect(table.authenticate(undefined, 'optional')).toBeUndefined();
    expect(() => table.authenticate('Bearer nobody', 'optional')).toThrow(/names no principal/);
    expect(() => table.authenticate('Basic c2VjcmV0LWE=', 'required')).toThrow(HostError);
  });

  it('refuses a token listed twice', () => {
    expect(
      () =>
        new TokenTable([
          { token: 't', tenant: 'a', principal: 'p' },
          { token: 't', tenant: 'b', principal: 'q' },
        ]),
    ).toThrow(/listed twice/);
  });
});

describe('parseTokensFile', () => {
  it('reads the closed tokens document', () => {
    const text = '{"tokens":[{"token":"t","tenant":"a","principal":"p"}]}';
    expect(parseTokensFile(Buffer.from(text))).toEqual([{ token: 't', tenant: 'a', principal: 'p' }]);
  });

  it('refuses unknown members and duplicate members', () => {
    expect(() => parseTokensFile(Buffer.from('{"tokens":[{"token":"t","tenant":"a","principal":"p","admin":true}]}'))).toThrow();
    expect(() => parseTokensFile(Buffer.from('{"tokens":[],"tokens":[]}'))).toThrow(/duplicate/);
  });
});
