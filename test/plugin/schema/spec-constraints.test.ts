// Own-spec constraints decided offline at validate when the catalog has the Form's
// `constraints` (orderedPair, sum, uniqueBy), on the attribute at fault; without them in the
// catalog (a lock made without packages) validate says nothing and the Host decides.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FormResourceType } from '../../../src/plugin/resource/form-resource-type.js';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { objectValue, type TfValue } from '../../../src/plugin/values/tf-value.js';
import { GENERIC_FORMS } from '../../support/paths.js';

function resourceType(dir: string, typeName: string, withConstraints: boolean): FormResourceType {
  const def = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'definition.json'), 'utf8'));
  const index = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'package-index.json'), 'utf8'));
  return new FormResourceType({
    typeName,
    formRef: index.formRef,
    title: def.title,
    operations: def.lifecycleCapabilities,
    immutableFields: def.immutableFields ?? [],
    desiredSchema: def.desiredSchema,
    ...(withConstraints ? { constraints: def.constraints } : {}),
  });
}
const n = (v: number) => TfNumber.of(v);
const config = (entries: [string, TfValue][]) => objectValue([['name', 'x'], ...entries]);

describe('offline own-spec constraints', () => {
  it('orderedPair on the first reference', async () => {
    const diags = await resourceType('range-counter', 'takoform_range_counter', true).validate(
      config([
        ['lower', n(5)],
        ['upper', n(1)],
      ]),
    );
    expect(diags).toHaveLength(1);
    expect(diags[0]!.path).toEqual(['lower']);
    expect(diags[0]!.detail).toMatch(/lower must be at most \/upper \(5 > 1\) \(orderedPair/);
  });

  it('sum on the list', async () => {
    const weights = (a: number, b: number) => [objectValue([['weight', n(a)]]), objectValue([['weight', n(b)]])];
    const rt = resourceType('constraint-sum', 'takoform_weighted_set', true);
    const diags = await rt.validate(config([['weights', weights(60, 30)]]));
    expect(diags.map((d) => d.path)).toEqual([['weights']]);
    expect(await rt.validate(config([['weights', weights(60, 40)]]))).toEqual([]);
  });

  it('uniqueBy on the repeated member', async () => {
    const row = (k: string, v: number) =>
      objectValue([
        ['key', k],
        ['value', n(v)],
      ]);
    const diags = await resourceType('constraint-structural', 'takoform_structural_constraint_holder', true).validate(
      config([
        ['lower', n(1)],
        ['upper', n(2)],
        ['rows', [row('a', 1), row('a', 2)]],
      ]),
    );
    expect(diags.map((d) => d.path)).toEqual([['rows', 1, 'key']]);
    expect(diags[0]!.detail).toMatch(/rows\[1\]\.key repeats/);
  });

  it('a catalog without constraints leaves them to the Host', async () => {
    expect(
      await resourceType('range-counter', 'takoform_range_counter', false).validate(
        config([
          ['lower', n(5)],
          ['upper', n(1)],
        ]),
      ),
    ).toEqual([]);
  });
});
