// The shared identifier grammars: the explanations the provider shows agree with the checks
// the Host applies — every refused string has a reason, every accepted one has none.
import { describe, expect, it } from 'vitest';
import { artifactPathProblem, isArtifactPath, isResourceName, isSpaceId, resourceNameProblem, spaceIdProblem } from '../../src/common/grammar.js';

const names = ['a', 'web-1', 'a'.repeat(63), '', 'A', 'Bad-Name', 'a'.repeat(64), 'naïve', '1abc', '-a', 'a-', 'a_b', 'a.b', 'a b'];
const spaces = [
  'demo',
  'a b',
  'Ünïcode space',
  'x'.repeat(255),
  '',
  ' demo',
  'demo ',
  '\u00a0demo',
  'demo\u3000',
  '\ufeffdemo',
  'a/b',
  'de\u0007mo',
  'de\u0085mo',
  'x'.repeat(256),
  'a\ud800b',
];

const artifactPaths = [
  'a',
  'a/b.c',
  '_x/y-z.min.js',
  'x'.repeat(240),
  '',
  '/a',
  'a\\b',
  'a//b',
  'a/./b',
  '../a',
  '.env',
  'a/.git/x',
  'ü',
  'a b',
  'x'.repeat(241),
  'a\u0000',
];

describe('identifier grammars', () => {
  it.each(artifactPaths)('artifact path %j: a reason exactly when it is refused', (p) => {
    expect(artifactPathProblem(p) === undefined).toBe(isArtifactPath(p));
  });
  it.each(names)('name %j: a reason exactly when it is refused', (name) => {
    expect(resourceNameProblem(name) === undefined).toBe(isResourceName(name));
  });
  it.each(spaces)('space %j: a reason exactly when it is refused', (space) => {
    expect(spaceIdProblem(space) === undefined).toBe(isSpaceId(space));
  });
  it('says which rule failed', () => {
    expect(resourceNameProblem('Bad-Name')).toMatch(/upper-case/);
    expect(resourceNameProblem('a'.repeat(64))).toMatch(/64 characters/);
    expect(resourceNameProblem('1abc')).toMatch(/start with a lower-case letter/);
    expect(spaceIdProblem('a/b')).toMatch(/"\/"/);
    expect(spaceIdProblem('de\u0085mo')).toMatch(/U\+0085/);
    expect(spaceIdProblem(' demo')).toMatch(/white space/);
    expect(spaceIdProblem('x'.repeat(256))).toMatch(/256 code points/);
  });
});
