// DesiredSpecChecker: materialize, validate against the exact desiredSchema, then constraints.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeclaredConstraintError } from '../../src/host/constraints.js';
import { readFormDefinition } from '../../src/host/form-definition.js';
import type { JsonValue } from '../../src/common/json-value.js';
import { DesiredSpecChecker } from '../../src/host/spec-validation.js';
import { EXTERNAL_FAMILY, RANGE_COUNTER_DIR, RANGE_SEQUENCE_DIR } from './support/host-harness.js';

function checkerFor(directory: string): DesiredSpecChecker {
  const document = JSON.parse(readFileSync(path.join(directory, 'definition.json'), 'utf8')) as JsonValue;
  return new DesiredSpecChecker(readFormDefinition(document));
}

describe('DesiredSpecChecker', () => {
  const rangeSequence = checkerFor(RANGE_SEQUENCE_DIR);
  const rangeCounter = checkerFor(RANGE_COUNTER_DIR);

  it('materializes RangeSequence mode "safe" and digests the canonical spec (§6.3)', () => {
    const check = rangeSequence.check({ upper: 6, lower: 3 });
    expect(check.problems).toEqual([]);
    expect(JSON.stringify(check.spec)).toBe('{"lower":3,"mode":"safe","upper":6}');
    expect(check.specDigest).toBe('sha256:cf7e78bf9b9293d6f8ff7cc13ed4c430af7b0277513906804e3a616871784a3c');
  });

  it('names the unexpected member of the RangeCounter negative fixture', () => {
    const fixture = JSON.parse(readFileSync(path.join(RANGE_COUNTER_DIR, 'fixtures/negative-unexpected-property.json'), 'utf8'));
    expect(rangeCounter.check(fixture).problems).toEqual([{ pointer: '/unexpected', message: expect.stringMatching(/not a member/) }]);
  });

  it('names missing members and wrong types', () => {
    const problems = rangeSequence.check({ lower: 'three' }).problems;
    expect(problems.map((problem) => problem.pointer).sort()).toEqual(['/lower', '/upper']);
  });

  it('checks orderedPair only on a schema-valid spec', () => {
    expect(rangeCounter.check({ lower: 3, upper: 2 }).problems).toEqual([
      { pointer: '/upper', message: expect.stringMatching(/greater than or equal to \/lower/) },
    ]);
    expect(rangeCounter.check({ lower: 2, upper: 2 }).problems).toEqual([]);
    expect(rangeCounter.check({ lower: 3, upper: 2, extra: 1 }).problems.map((problem) => problem.pointer)).toEqual(['/extra']);
  });
});

describe('readFormDefinition and constraints', () => {
  it('refuses unknown and malformed constraint entries', () => {
    const base = JSON.parse(readFileSync(path.join(RANGE_COUNTER_DIR, 'definition.json'), 'utf8'));
    const withConstraints = (constraints: unknown) => () => readFormDefinition({ ...base, constraints });
    expect(withConstraints([{ kind: 'uniqueBy', list: '/rows' }])).toThrow(DeclaredConstraintError);
    expect(withConstraints([{ kind: 'sum', list: '/rows', member: 'w', total: 1.5 }])).toThrow(/integer/);
    expect(withConstraints([{ kind: 'someday' }])).toThrow(/not a v1 declared constraint kind/);
    expect(withConstraints([{ kind: 'orderedPair', references: ['/lower', '/lower'] }])).toThrow(/distinct/);
    expect(withConstraints([{ kind: 'orderedPair', references: ['/lower', '/upper'], extra: 1 }])).toThrow(/foreign member/);
    expect(withConstraints([{ kind: 'orderedPair', references: ['/items/*/a', '/upper'] }])).toThrow(/without wildcards/);
  });

  it('reads every v1 Definition without a constraint or with only orderedPair', () => {
    for (const name of ['range-sequence', 'range-counter', 'range-counter-v0-2', 'range-gauge', 'revision-note']) {
      const document = JSON.parse(readFileSync(path.join(EXTERNAL_FAMILY, name, 'definition.json'), 'utf8'));
      expect(() => new DesiredSpecChecker(readFormDefinition(document)), name).not.toThrow();
    }
  });
});
