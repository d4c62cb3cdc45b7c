import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FormResourceType } from '../../../src/plugin/resource/form-resource-type.js';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { objectValue, UNKNOWN, type TfValue } from '../../../src/plugin/values/tf-value.js';
import { GENERIC_FORMS } from '../../support/paths.js';

function resourceType(dir: string, typeName: string): FormResourceType {
  const def = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'definition.json'), 'utf8'));
  const index = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'package-index.json'), 'utf8'));
  return new FormResourceType({
    typeName,
    formRef: index.formRef,
    title: def.title,
    operations: def.lifecycleCapabilities,
    immutableFields: def.immutableFields ?? [],
    desiredSchema: def.desiredSchema,
  });
}

const config = (entries: [string, TfValue][]) => objectValue(entries);

describe('offline validation against the Form schema', () => {
  const seq = resourceType('range-sequence', 'takoform_range_sequence');
  const counter = resourceType('range-counter', 'takoform_range_counter');

  it('accepts a valid configuration', async () => {
    expect(
      await seq.validator.validate(
        config([
          ['name', 'a'],
          ['lower', TfNumber.of(1)],
          ['upper', TfNumber.of(2)],
        ]),
      ),
    ).toEqual([]);
  });

  it('refuses a value outside the enum, with the attribute path', async () => {
    const diags = await seq.validator.validate(
      config([
        ['lower', TfNumber.of(1)],
        ['upper', TfNumber.of(2)],
        ['mode', 'turbo'],
      ]),
    );
    expect(diags).toHaveLength(1);
    expect(diags[0]!.path).toEqual(['mode']);
    expect(diags[0]!.detail).toMatch(/^takoform_range_sequence: mode must be one of "safe", "fast" \(JSON Schema rule `enum` of the Form\)/);
  });

  it('checks nested list items and reports the element path', async () => {
    const slot = (name: string) =>
      objectValue([
        ['name', name],
        ['required', null],
        [
          'service',
          objectValue([
            ['api_version', null],
            ['protocol', 'com.amazonaws.s3'],
          ]),
        ],
      ]);
    const diags = await counter.validator.validate(
      config([
        ['lower', TfNumber.of(1)],
        ['upper', TfNumber.of(2)],
        ['external_services', [slot('OBJECTS'), slot('bad name')]],
      ]),
    );
    expect(diags.map((d) => d.path)).toEqual([['external_services', 1, 'name']]);
    // The text speaks HCL: the attribute path as written, never the Host's JSON Pointer.
    expect(diags[0]!.detail).toMatch(/^takoform_range_counter: external_services\[1\]\.name must match pattern/);
    expect(diags[0]!.detail).not.toMatch(/externalServices|\/name/);
  });

  it('leaves unknown values to later instead of calling them missing', async () => {
    expect(
      await seq.validator.validate(
        config([
          ['lower', UNKNOWN],
          ['upper', TfNumber.of(2)],
        ]),
      ),
    ).toEqual([]);
  });

  it('refuses a fractional value for an integer property', async () => {
    const diags = await seq.validator.validate(
      config([
        ['lower', TfNumber.of(1.5)],
        ['upper', TfNumber.of(2)],
      ]),
    );
    expect(diags[0]!.path).toEqual(['lower']);
  });
});
