// Resource identity (protocol 6.9, used by OpenTofu 1.12 and Terraform 1.12+): a stable,
// unversioned address of the Host resource — space, Form group, kind, name — that `import`
// blocks can use instead of an ID string. The uid is deliberately not part of it: identity
// names "this resource", while the uid names one incarnation of it.
import { T, type TfType } from '../values/tf-type.js';
import { isUnknown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import type { ResourceKind } from './resource-kind.js';

export const IDENTITY_VERSION = 0;
export const IDENTITY_TYPE: TfType = T.object({ space: T.string, api_version: T.string, kind: T.string, name: T.string });

export const IDENTITY_ATTRIBUTES = [
  { name: 'name', required_for_import: true, description: 'Resource name (`metadata.name`).' },
  { name: 'space', optional_for_import: true, description: 'Space; defaults to the provider `space`.' },
  { name: 'api_version', optional_for_import: true, description: "Form group; must be the resource type's." },
  { name: 'kind', optional_for_import: true, description: "Form kind; must be the resource type's." },
] as const;

/** The identity of a state or planned object; unknown when its name or space is not known yet. */
export function identityOf(kind: ResourceKind, state: TfObject): TfValue {
  const space = state.space ?? null;
  const name = state.name ?? null;
  if (space === null || name === null || isUnknown(space) || isUnknown(name)) return UNKNOWN;
  const ref = kind.formRef(state);
  return objectValue([
    ['space', space],
    ['api_version', ref.apiVersion],
    ['kind', ref.kind],
    ['name', name],
  ]);
}

/** The import ID an identity names ("SPACE/NAME" or "NAME"), checked against the kind's Form. */
export function importIdFromIdentity(kind: ResourceKind, identity: TfObject | null): { id: string } | { error: Diagnostic } {
  const text = (k: string) => (identity && typeof identity[k] === 'string' ? (identity[k] as string) : undefined);
  const ref = kind.formRef(identity ?? {});
  if ((text('api_version') && text('api_version') !== ref.apiVersion) || (text('kind') && text('kind') !== ref.kind)) {
    return {
      error: errorDiag(
        'Identity names another Form',
        `${kind.typeName} manages ${ref.apiVersion}/${ref.kind}; the identity names ${text('api_version') ?? ref.apiVersion}/${text('kind') ?? ref.kind}. ` +
          "Leave `api_version` and `kind` out of the identity (they default to the type's), or import into the resource type of that Form.",
      ),
    };
  }
  const name = text('name');
  if (!name) return { error: errorDiag('Identity lacks a name', `Importing ${kind.typeName} by identity needs \`name\`.`) };
  return { id: text('space') ? `${text('space')}/${name}` : name };
}

/** An identity stored by an earlier provider version, as this version reads it. */
export function upgradeIdentity(raw: Record<string, unknown> | null): TfValue {
  return raw ? objectValue(['space', 'api_version', 'kind', 'name'].map((k) => [k, typeof raw[k] === 'string' ? (raw[k] as string) : null] as const)) : null;
}
