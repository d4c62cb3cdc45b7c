// Addressing one resource under one exact FormRef through path + query (read, observe, delete):
// `?space&definitionVersion&schemaDigest`, exactly those keys. A resource recorded under any
// other exact FormRef, or held only by another tenant, is answered like a missing one.
import type { Caller } from '../auth.js';
import type { InstalledForm } from '../catalog.js';
import { HostError } from '../errors.js';
import { DEFINITION_VERSION_GRAMMAR, DIGEST_GRAMMAR, sameFormRef, type FormRef } from '../form-ref.js';
import { isSpaceId } from '../grammar.js';
import type { HostContext } from '../host-context.js';
import { requiredQueryValue, type QueryParameters } from '../http/query.js';
import type { ResourceAddress, StoreTransaction, StoredResource } from '../store/store.js';
import { resolveForm } from './admission.js';

export const EXACT_RESOURCE_QUERY_KEYS = ['space', 'definitionVersion', 'schemaDigest'] as const;

export const SPACE_QUERY_GRAMMAR = { test: isSpaceId, describe: 'a SpaceID' };

export interface ResourcePath {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

export interface ExactResourceTarget {
  readonly address: ResourceAddress;
  readonly formRef: FormRef;
}

/** Reads the three required keys (absent or malformed is invalid_argument). */
export function readExactResourceQuery(caller: Caller, path: ResourcePath, query: QueryParameters): ExactResourceTarget {
  const space = requiredQueryValue(query, 'space', SPACE_QUERY_GRAMMAR);
  const definitionVersion = requiredQueryValue(query, 'definitionVersion', DEFINITION_VERSION_GRAMMAR);
  const schemaDigest = requiredQueryValue(query, 'schemaDigest', DIGEST_GRAMMAR);
  return {
    address: { tenant: caller.tenant, space, group: path.group, kind: path.kind, name: path.name },
    formRef: { apiVersion: path.group, kind: path.kind, definitionVersion, schemaDigest },
  };
}

/** The installed Form (else form_unknown) and the resource recorded under it (else resource_not_found). */
export async function findExactResource(
  host: HostContext,
  tx: StoreTransaction,
  target: ExactResourceTarget,
): Promise<{ form: InstalledForm; resource: StoredResource }> {
  const form = resolveForm(host.catalog, target.formRef);
  const resource = await tx.findResource(target.address);
  if (resource === undefined || !sameFormRef(resource.formRef, target.formRef)) {
    throw resourceNotFound(target.address);
  }
  return { form, resource };
}

/** Never says whether another tenant, or another exact FormRef, holds the name. */
export function resourceNotFound(address: ResourceAddress): HostError {
  return new HostError('resource_not_found', `no ${address.kind} named "${address.name}" exists in this space under the requested exact FormRef`);
}
