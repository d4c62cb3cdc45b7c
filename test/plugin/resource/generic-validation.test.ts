// takoform_resource for a Form the catalog has is checked offline like the typed type, so
// a spec that Form's schema refuses never reaches the Host; other Forms are left to prepare.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateJsonProblem } from '../../../src/plugin/grpc/provider-service.js';
import { FormResourceType } from '../../../src/plugin/resource/form-resource-type.js';
import { validateGenericSpec } from '../../../src/plugin/resource/generic-resource.js';
import { jsonToDynamic } from '../../../src/plugin/schema/form-mapping.js';
import { objectValue, UNKNOWN, type TfValue } from '../../../src/plugin/values/tf-value.js';
import { GENERIC_FORMS } from '../../support/paths.js';

const dir = path.join(GENERIC_FORMS, 'range-counter');
const def = JSON.parse(readFileSync(path.join(dir, 'definition.json'), 'utf8'));
const index = JSON.parse(readFileSync(path.join(dir, 'package-index.json'), 'utf8'));
const rt = new FormResourceType({
  typeName: 'takoform_range_counter',
  formRef: index.formRef,
  title: def.title,
  operations: def.lifecycleCapabilities,
  immutableFields: [],
  desiredSchema: def.desiredSchema,
});
const negative = JSON.parse(readFileSync(path.join(dir, 'fixtures/negative-unexpected-property.json'), 'utf8'));

const config = (spec: TfValue, ref = index.formRef) =>
  objectValue([
    ['api_version', ref.apiVersion],
    ['kind', ref.kind],
    ['definition_version', ref.definitionVersion],
    ['schema_digest', ref.schemaDigest],
    ['name', 'g'],
    ['spec', spec],
  ]);

describe('offline validation of takoform_resource', () => {
  it('refuses the RangeCounter negative fixture, at `spec`, naming the member', async () => {
    const diags = await validateGenericSpec([rt], config(jsonToDynamic(negative)));
    expect(diags).toHaveLength(1);
    expect(diags[0]!.path).toEqual(['spec']);
    expect(diags[0]!.detail).toMatch(/spec\.unexpected is not part of the Form/);
  });

  it('accepts the positive fixture, and leaves unknown specs and Forms outside the catalog alone', async () => {
    expect(await validateGenericSpec([rt], config(jsonToDynamic({ lower: 1, upper: 2 })))).toEqual([]);
    expect(await validateGenericSpec([rt], config(UNKNOWN))).toEqual([]);
    expect(await validateGenericSpec([rt], config(jsonToDynamic(negative), { ...index.formRef, definitionVersion: '9.9.9' }))).toEqual([]);
  });

  it('refuses a spec that is not an object', async () => {
    const diags = await validateGenericSpec([rt], config(jsonToDynamic([1, 2])));
    expect(diags.map((d) => [d.summary, d.path])).toEqual([['Invalid spec', ['spec']]]);
  });
});

describe('stored state JSON given to UpgradeResourceState', () => {
  it('must be a JSON object (or null)', () => {
    expect(stateJsonProblem(Buffer.from('{"name":"x","lower":1e400}'))).toBeUndefined();
    expect(stateJsonProblem(Buffer.from('null'))).toBeUndefined();
    expect(stateJsonProblem(Buffer.from('{"name":'))).toMatch(/not valid JSON/);
    expect(stateJsonProblem(Buffer.from('[1,2]'))).toMatch(/array, not an object/);
    expect(stateJsonProblem(Buffer.alloc(0))).toMatch(/empty/);
  });
});
