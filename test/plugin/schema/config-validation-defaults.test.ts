// The offline check judges a configuration as the Host does: after the Form's defaults are
// filled in. Otherwise a configuration passes validate and plan fails at the Host's prepare.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FormResourceType } from '../../../src/plugin/resource/form-resource-type.js';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { objectValue } from '../../../src/plugin/values/tf-value.js';
import { GENERIC_FORMS } from '../../support/paths.js';

function rangeCounter(): FormResourceType {
  const dir = path.join(GENERIC_FORMS, 'range-counter');
  const def = JSON.parse(readFileSync(path.join(dir, 'definition.json'), 'utf8'));
  const index = JSON.parse(readFileSync(path.join(dir, 'package-index.json'), 'utf8'));
  return new FormResourceType({
    typeName: 'takoform_range_counter',
    formRef: index.formRef,
    title: def.title,
    operations: def.lifecycleCapabilities,
    immutableFields: def.immutableFields ?? [],
    desiredSchema: def.desiredSchema,
  });
}

describe('offline validation after default materialization', () => {
  const rt = rangeCounter();
  const slot = (required: boolean | null) =>
    objectValue([
      ['name', 'OBJECTS'],
      ['required', required],
      [
        'service',
        objectValue([
          ['api_version', null],
          ['protocol', 'com.amazonaws.s3'],
        ]),
      ],
    ]);
  const config = (slots: unknown[]) =>
    objectValue([
      ['name', 'c'],
      ['lower', TfNumber.of(1)],
      ['upper', TfNumber.of(2)],
      ['external_services', slots as never],
    ]);

  it('refuses two list items that only differ by a member the Host defaults (uniqueItems)', async () => {
    const diags = await rt.validator.validate(config([slot(true), slot(null)]));
    expect(diags).toHaveLength(1);
    expect(diags[0]!.path).toEqual(['external_services']);
    expect(diags[0]!.detail).toMatch(/uniqueItems/);
  });

  it('accepts items that stay distinct after defaults', async () => {
    expect(await rt.validator.validate(config([slot(true), slot(false)]))).toEqual([]);
  });

  it('checks a whole spec document (takoform_resource) the same way', async () => {
    const service = { apiVersion: 'standards.takoform.com/v1', protocol: 'com.amazonaws.s3' };
    const diags = await rt.validator.validateDocument(
      {
        lower: 1,
        upper: 2,
        externalServices: [
          { name: 'A', required: true, service },
          { name: 'A', service },
        ],
      },
      () => ['spec'],
    );
    expect(diags.map((d) => d.path)).toEqual([['spec']]);
  });
});
