// Host refusals point into the request document; the attribute path must follow them to
// the attribute the user wrote: the resource name and space, and takoform_resource's spec.
import { describe, expect, it } from 'vitest';
import { HostApiError } from '../../../src/host-client/index.js';
import { hostFailureDiagnostic, type ResourceContext } from '../../../src/plugin/diag/host-diagnostics.js';
import { mapDesiredSchema } from '../../../src/plugin/schema/form-mapping.js';

const refusal = (pointer: string) => new HostApiError('prepare', 'invalid_argument', 400, false, 'req_1', `${pointer} is wrong`, undefined, pointer);
const ref = { apiVersion: 'resources.publisher.example', kind: 'RangeSequence', definitionVersion: '0.1.0', schemaDigest: `sha256:${'0'.repeat(64)}` };
const typed: ResourceContext = {
  typeName: 'takoform_range_sequence',
  name: 'n',
  space: 's',
  formRef: ref,
  fields: mapDesiredSchema({ type: 'object', properties: { lower: { type: 'integer' } } }),
};
const generic: ResourceContext = { typeName: 'takoform_resource', name: 'n', space: 's', formRef: ref, specAttribute: 'spec' };

describe('attribute paths of Host refusals', () => {
  it('map /metadata/name and /metadata/space to the name and space attributes', () => {
    expect(hostFailureDiagnostic('prepare', refusal('/metadata/name'), typed).path).toEqual(['name']);
    expect(hostFailureDiagnostic('prepare', refusal('/metadata/space'), generic).path).toEqual(['space']);
  });

  it('map spec pointers to the typed attribute, or to the whole spec of takoform_resource', () => {
    expect(hostFailureDiagnostic('prepare', refusal('/spec/lower'), typed).path).toEqual(['lower']);
    expect(hostFailureDiagnostic('prepare', refusal('/spec/lower'), generic).path).toEqual(['spec']);
  });

  it('leave pointers at the Form itself without a path', () => {
    expect(hostFailureDiagnostic('prepare', refusal('/apiVersion'), typed).path).toBeUndefined();
  });
});
