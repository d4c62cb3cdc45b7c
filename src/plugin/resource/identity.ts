// Resource identity (protocol 6.9, used by OpenTofu 1.12 and Terraform 1.12+): a stable,
// unversioned address of the Host resource — space, Form group, kind, name — that `import`
// blocks can use instead of an ID string. The uid is deliberately not part of it: identity
// names "this resource", while the uid names one incarnation of it.
import { T, type TfType } from '../values/tf-type.js';
import { isUnknown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import type { FormResourceType } from './form-resource-type.js';

export const IDENTITY_VERSION = 0;
export const IDENTITY_TYPE: TfType = T.object({ space: T.string, api_version: T.string, kind: T.string, name: T.string });

export const IDENTITY_ATTRIBUTES = [
  { name: 'name', required_for_import: true, description: 'Resource name (`metadata.name`).' },
  { name: 'space', optional_for_import: true, description: 'Space; defaults to the provider `space`.' },
  { name: 'api_version', optional_for_import: true, description: 'Form group; must be the resource type\'s.' },
  { name: 'kind', optional_for_import: true, description: 'Form kind; must be the resource type\'s.' },
] as const;

/** The identity of a state or planned object; unknown when its name or space is not known yet. */
export function identityOf(rt: FormResourceType, state: TfObject): TfValue {
  const space = state.space ?? null;
  const name = state.name ?? null;
  if (space === null || name === null || isUnknown(space) || isUnknown(name)) return UNKNOWN;
  return objectValue([
    ['space', space],
    ['api_version', rt.form.formRef.apiVersion],
    ['kind', rt.form.formRef.kind],
    ['name', name],
  ]);
}
