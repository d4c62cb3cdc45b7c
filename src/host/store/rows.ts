// Rows of the Host's tables and their mapping to the store's records. Both engines use the same
// table and column names, so one mapping serves SQLite and PostgreSQL; only the SQL differs.
import { canonicalJson } from '../../common/digest.js';
import { isJsonObject, type JsonObject } from '../../common/json-value.js';
import type {
  DependentPin,
  IdempotencyRecord,
  IdempotencyScope,
  RelationPin,
  Reservation,
  ResourceAddress,
  StoredOperation,
  StoredResource,
  UploadSession,
} from './store.js';

export interface ResourceRow {
  uid: string;
  tenant: string;
  space: string;
  form_group: string;
  kind: string;
  name: string;
  definition_version: string;
  schema_digest: string;
  package_digest: string | null;
  generation: string;
  revision: string;
  spec_json: string;
  spec_digest: string;
  status_json: string;
}

export interface AddressParams {
  tenant: string;
  space: string;
  form_group: string;
  kind: string;
  name: string;
}

export interface ScopeParams {
  tenant: string;
  principal: string;
  space: string;
  idempotency_key: string;
}

export interface IdempotencyRow extends ScopeParams {
  fingerprint: string;
  status: number;
  etag: string | null;
  body: Buffer;
  bound_uid: string | null;
  operation_id: string | null;
}

export interface RelationRow {
  source_uid: string;
  pointer: string;
  relation: string;
  target_tenant: string;
  target_space: string;
  target_group: string;
  target_kind: string;
  target_name: string;
  target_uid: string;
  target_version: string;
  target_digest: string;
  binding_ref: string | null;
}

export interface ReservationRow {
  tenant: string;
  namespace: string;
  value: string;
  holder_uid: string;
}

export interface OperationRow {
  id: string;
  tenant: string;
  principal: string;
  document: string;
  pending: string | null;
  polls_left: number;
}

export interface UploadRow {
  id: string;
  tenant: string;
  principal: string;
  manifest_digest: string;
  manifest: string;
  state: UploadSession['state'];
}

export function addressParams(address: ResourceAddress): AddressParams {
  return {
    tenant: address.tenant,
    space: address.space,
    form_group: address.group,
    kind: address.kind,
    name: address.name,
  };
}

export function scopeParams(scope: IdempotencyScope): ScopeParams {
  return { tenant: scope.tenant, principal: scope.principal, space: scope.space, idempotency_key: scope.key };
}

export function rowFromResource(resource: StoredResource): ResourceRow {
  return {
    uid: resource.uid,
    ...addressParams(resource.address),
    definition_version: resource.formRef.definitionVersion,
    schema_digest: resource.formRef.schemaDigest,
    package_digest: resource.packageDigest ?? null,
    generation: resource.generation,
    revision: resource.revision,
    spec_json: canonicalJson(resource.spec),
    spec_digest: resource.specDigest,
    status_json: JSON.stringify(resource.status),
  };
}

export function resourceFromRow(row: ResourceRow): StoredResource {
  return {
    address: { tenant: row.tenant, space: row.space, group: row.form_group, kind: row.kind, name: row.name },
    formRef: {
      apiVersion: row.form_group,
      kind: row.kind,
      definitionVersion: row.definition_version,
      schemaDigest: row.schema_digest,
    },
    packageDigest: row.package_digest ?? undefined,
    uid: row.uid,
    generation: row.generation,
    revision: row.revision,
    spec: parseStoredObject(row.spec_json, row.uid),
    specDigest: row.spec_digest,
    status: parseStoredObject(row.status_json, row.uid),
  };
}

export function rowFromPin(sourceUid: string, pin: RelationPin): RelationRow {
  return {
    source_uid: sourceUid,
    pointer: pin.pointer,
    relation: pin.relation,
    target_tenant: pin.target.tenant,
    target_space: pin.target.space,
    target_group: pin.target.group,
    target_kind: pin.target.kind,
    target_name: pin.target.name,
    target_uid: pin.targetUid,
    target_version: pin.targetFormRef.definitionVersion,
    target_digest: pin.targetFormRef.schemaDigest,
    binding_ref: pin.bindingRef ?? null,
  };
}

export function pinFromRow(row: RelationRow): RelationPin {
  return {
    pointer: row.pointer,
    relation: row.relation,
    target: {
      tenant: row.target_tenant,
      space: row.target_space,
      group: row.target_group,
      kind: row.target_kind,
      name: row.target_name,
    },
    targetUid: row.target_uid,
    targetFormRef: {
      apiVersion: row.target_group,
      kind: row.target_kind,
      definitionVersion: row.target_version,
      schemaDigest: row.target_digest,
    },
    bindingRef: row.binding_ref ?? undefined,
  };
}

export function dependentFromRow(row: RelationRow): DependentPin {
  return { ...pinFromRow(row), sourceUid: row.source_uid };
}

export function reservationFromRow(row: ReservationRow): Reservation {
  return { tenant: row.tenant, namespace: row.namespace, value: row.value, holderUid: row.holder_uid };
}

export function operationFromRow(row: OperationRow): StoredOperation {
  return {
    id: row.id,
    tenant: row.tenant,
    principal: row.principal,
    document: row.document,
    pending: row.pending ?? undefined,
    pollsLeft: row.polls_left,
  };
}

export function uploadFromRow(row: UploadRow): UploadSession {
  return {
    id: row.id,
    tenant: row.tenant,
    principal: row.principal,
    manifestDigest: row.manifest_digest,
    manifest: row.manifest,
    state: row.state,
  };
}

export function parseStoredObject(json: string, uid: string): JsonObject {
  const value: unknown = JSON.parse(json);
  if (!isJsonObject(value)) throw new Error(`stored JSON of resource ${uid} is not an object`);
  return value as JsonObject;
}

export function idempotencyFromRow(scope: IdempotencyScope, row: IdempotencyRow): IdempotencyRecord {
  return {
    scope,
    fingerprint: row.fingerprint,
    status: row.status,
    etag: row.etag ?? undefined,
    body: row.body,
    boundUid: row.bound_uid ?? undefined,
    operationId: row.operation_id ?? undefined,
  };
}

export function rowFromIdempotency(record: IdempotencyRecord): IdempotencyRow {
  return {
    ...scopeParams(record.scope),
    fingerprint: record.fingerprint,
    status: record.status,
    etag: record.etag ?? null,
    body: Buffer.from(record.body),
    bound_uid: record.boundUid ?? null,
    operation_id: record.operationId ?? null,
  };
}

export function rowFromOperation(operation: StoredOperation): OperationRow {
  return {
    id: operation.id,
    tenant: operation.tenant,
    principal: operation.principal,
    document: operation.document,
    pending: operation.pending ?? null,
    polls_left: operation.pollsLeft,
  };
}

export function rowFromUpload(upload: UploadSession): UploadRow {
  return {
    id: upload.id,
    tenant: upload.tenant,
    principal: upload.principal,
    manifest_digest: upload.manifestDigest,
    manifest: upload.manifest,
    state: upload.state,
  };
}

export function rowFromReservation(reservation: Reservation): ReservationRow {
  return {
    tenant: reservation.tenant,
    namespace: reservation.namespace,
    value: reservation.value,
    holder_uid: reservation.holderUid,
  };
}
