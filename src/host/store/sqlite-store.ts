// HostStore on better-sqlite3. One connection, statements prepared once, WAL for file databases
// (':memory:' has no WAL), foreign keys on so that deleting an incarnation releases its relations,
// reservations and bound idempotency records in the database itself.
//
// The store contract is asynchronous (see store.ts for why). better-sqlite3's own transaction
// helper only wraps synchronous functions, so transactions are driven with explicit BEGIN
// IMMEDIATE / COMMIT / ROLLBACK and SAVEPOINT statements, and whole transactions are serialized
// by a promise-chain mutex: while one transaction awaits, no other can touch the connection.
import Database from 'better-sqlite3';
import { canonicalJson } from '../../common/digest.js';
import { isJsonObject, type JsonObject } from '../../common/json-value.js';
import { migrateSqliteSchema } from './sqlite-schema.js';
import type {
  DependentPin,
  HostStore,
  IdempotencyRecord,
  IdempotencyScope,
  PrepareBinding,
  RelationPin,
  Reservation,
  ResourceAddress,
  StoreTransaction,
  StoredOperation,
  StoredResource,
  UploadSession,
} from './store.js';

interface ResourceRow {
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

interface AddressParams {
  tenant: string;
  space: string;
  form_group: string;
  kind: string;
  name: string;
}

interface ScopeParams {
  tenant: string;
  principal: string;
  space: string;
  idempotency_key: string;
}

interface IdempotencyRow extends ScopeParams {
  fingerprint: string;
  status: number;
  etag: string | null;
  body: Buffer;
  bound_uid: string | null;
  operation_id: string | null;
}

interface RelationRow {
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

interface ReservationRow {
  tenant: string;
  namespace: string;
  value: string;
  holder_uid: string;
}

interface OperationRow {
  id: string;
  tenant: string;
  principal: string;
  document: string;
  pending: string | null;
  polls_left: number;
}

interface UploadRow {
  id: string;
  tenant: string;
  principal: string;
  manifest_digest: string;
  manifest: string;
  state: UploadSession['state'];
}

export class SqliteHostStore implements HostStore {
  private readonly statements: Statements;
  private readonly tx: StoreTransaction;
  /** The tail of the transaction queue; each transaction starts when the previous one settles. */
  private queue: Promise<unknown> = Promise.resolve();
  private savepoints = 0;

  private constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
    this.tx = this.createTransactionView();
  }

  /** Opens (creating if needed) the database at `path`; ':memory:' gives a private in-memory one. */
  static open(path: string): SqliteHostStore {
    const db = new Database(path);
    try {
      if (path !== ':memory:') db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      // Another process on the same file (a second Host, a CLI inspection) waits instead of failing.
      db.pragma('busy_timeout = 5000');
      migrateSqliteSchema(db);
      return new SqliteHostStore(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      // IMMEDIATE takes the write lock up front: a check-then-write can never be overtaken,
      // not even by another process on the same file.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.tx);
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private createTransactionView(): StoreTransaction {
    const s = this.statements;
    return {
      findResource: async (address) => {
        const row = s.findResource.get(addressParams(address));
        return row === undefined ? undefined : resourceFromRow(row);
      },
      findResourceByUid: async (uid) => {
        const row = s.findResourceByUid.get(uid);
        return row === undefined ? undefined : resourceFromRow(row);
      },
      insertResource: async (resource) => {
        s.insertResource.run(rowFromResource(resource));
      },
      updateResource: async (resource) => {
        const result = s.updateResource.run(rowFromResource(resource));
        if (result.changes !== 1) throw new Error(`no stored resource has uid ${resource.uid}`);
      },
      deleteResource: async (uid) => {
        s.deleteResource.run(uid);
      },
      replaceRelations: async (sourceUid, pins) => {
        s.deleteRelations.run(sourceUid);
        for (const pin of pins) s.insertRelation.run(rowFromPin(sourceUid, pin));
      },
      relationsOf: async (sourceUid) => s.relationsOf.all(sourceUid).map(pinFromRow),
      relationsTargetingAddress: async (address) => s.relationsTargetingAddress.all(addressParams(address)).map(dependentFromRow),
      relationsTargetingUid: async (uid) => s.relationsTargetingUid.all(uid).map(dependentFromRow),
      findReservation: async (tenant, namespace, value) => {
        const row = s.findReservation.get(tenant, namespace, value);
        return row === undefined ? undefined : reservationFromRow(row);
      },
      saveReservation: async (reservation) => {
        s.saveReservation.run({
          tenant: reservation.tenant,
          namespace: reservation.namespace,
          value: reservation.value,
          holder_uid: reservation.holderUid,
        });
      },
      reservationsHeldBy: async (holderUid) => s.reservationsHeldBy.all(holderUid).map(reservationFromRow),
      releaseReservations: async (holderUid, namespacePrefix) => {
        for (const row of s.reservationsHeldBy.all(holderUid)) {
          if (row.namespace.startsWith(namespacePrefix)) s.deleteReservation.run(row.tenant, row.namespace, row.value);
        }
      },
      nextSequence: async (tenant, name) => {
        s.bumpSequence.run(tenant, name);
        const row = s.readSequence.get(tenant, name);
        if (row === undefined) throw new Error(`sequence ${name} vanished`);
        return row.value;
      },
      findPrepareBinding: async (digest, tenant) => {
        const row = s.findPrepareBinding.get(digest, tenant);
        return row === undefined ? undefined : { digest, tenant, payload: row.payload };
      },
      savePrepareBinding: async (binding: PrepareBinding) => {
        s.savePrepareBinding.run(binding.digest, binding.tenant, binding.payload);
      },
      findIdempotencyRecord: async (scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> => {
        const row = s.findIdempotencyRecord.get(scopeParams(scope));
        if (row === undefined) return undefined;
        return {
          scope,
          fingerprint: row.fingerprint,
          status: row.status,
          etag: row.etag ?? undefined,
          body: row.body,
          boundUid: row.bound_uid ?? undefined,
          operationId: row.operation_id ?? undefined,
        };
      },
      saveIdempotencyRecord: async (record) => {
        s.saveIdempotencyRecord.run({
          ...scopeParams(record.scope),
          fingerprint: record.fingerprint,
          status: record.status,
          etag: record.etag ?? null,
          body: Buffer.from(record.body),
          bound_uid: record.boundUid ?? null,
          operation_id: record.operationId ?? null,
        });
      },
      bindOperationRecords: async (operationId, uid) => {
        s.bindOperationRecords.run(uid, operationId);
      },
      findOperation: async (id) => {
        const row = s.findOperation.get(id);
        return row === undefined ? undefined : operationFromRow(row);
      },
      saveOperation: async (operation: StoredOperation) => {
        s.saveOperation.run({
          id: operation.id,
          tenant: operation.tenant,
          principal: operation.principal,
          document: operation.document,
          pending: operation.pending ?? null,
          polls_left: operation.pollsLeft,
        });
      },
      findUpload: async (id) => {
        const row = s.findUpload.get(id);
        return row === undefined ? undefined : uploadFromRow(row);
      },
      findOpenUpload: async (tenant, principal, manifestDigest) => {
        const row = s.findOpenUpload.get(tenant, principal, manifestDigest);
        return row === undefined ? undefined : uploadFromRow(row);
      },
      saveUpload: async (upload) => {
        s.saveUpload.run({
          id: upload.id,
          tenant: upload.tenant,
          principal: upload.principal,
          manifest_digest: upload.manifestDigest,
          manifest: upload.manifest,
          state: upload.state,
        });
      },
      saveBlob: async (digest, bytes) => {
        s.saveBlob.run(digest, Buffer.from(bytes));
      },
      hasBlobBytes: async (digest) => s.hasBlob.get(digest) !== undefined,
      holdsBlob: async (tenant, digest) => s.holdsBlob.get(tenant, digest) !== undefined,
      grantBlob: async (tenant, digest) => {
        s.grantBlob.run(tenant, digest);
      },
      findManifest: async (tenant, manifestDigest) => s.findManifest.get(tenant, manifestDigest)?.manifest,
      grantManifest: async (tenant, manifestDigest, manifest) => {
        s.grantManifest.run(tenant, manifestDigest, manifest);
      },
      savepoint: (work) => this.savepoint(work),
    };
  }

  private async savepoint<T>(work: () => Promise<T>): Promise<T> {
    this.savepoints += 1;
    const name = `sp_${this.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await work();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw error;
    }
  }
}

type Statements = ReturnType<typeof prepareStatements>;

const ADDRESS_MATCH = 'tenant = @tenant AND space = @space AND form_group = @form_group AND kind = @kind AND name = @name';
const TARGET_MATCH =
  'target_tenant = @tenant AND target_space = @space AND target_group = @form_group AND target_kind = @kind AND target_name = @name';

// Prepared once per connection; the return type names the statements for the class field.
function prepareStatements(db: Database.Database) {
  return {
    findResource: db.prepare<AddressParams, ResourceRow>(`SELECT * FROM resources WHERE ${ADDRESS_MATCH}`),
    findResourceByUid: db.prepare<[string], ResourceRow>('SELECT * FROM resources WHERE uid = ?'),
    insertResource: db.prepare<ResourceRow>(
      `INSERT INTO resources (uid, tenant, space, form_group, kind, name, definition_version, schema_digest,
         package_digest, generation, revision, spec_json, spec_digest, status_json)
       VALUES (@uid, @tenant, @space, @form_group, @kind, @name, @definition_version, @schema_digest,
         @package_digest, @generation, @revision, @spec_json, @spec_digest, @status_json)`,
    ),
    updateResource: db.prepare<ResourceRow>(
      `UPDATE resources SET definition_version = @definition_version, schema_digest = @schema_digest,
         package_digest = @package_digest, generation = @generation, revision = @revision,
         spec_json = @spec_json, spec_digest = @spec_digest, status_json = @status_json
       WHERE uid = @uid`,
    ),
    deleteResource: db.prepare<[string]>('DELETE FROM resources WHERE uid = ?'),
    deleteRelations: db.prepare<[string]>('DELETE FROM relations WHERE source_uid = ?'),
    insertRelation: db.prepare<RelationRow>(
      `INSERT INTO relations (source_uid, pointer, relation, target_tenant, target_space, target_group, target_kind,
         target_name, target_uid, target_version, target_digest, binding_ref)
       VALUES (@source_uid, @pointer, @relation, @target_tenant, @target_space, @target_group, @target_kind,
         @target_name, @target_uid, @target_version, @target_digest, @binding_ref)`,
    ),
    relationsOf: db.prepare<[string], RelationRow>('SELECT * FROM relations WHERE source_uid = ? ORDER BY pointer'),
    relationsTargetingAddress: db.prepare<AddressParams, RelationRow>(
      `SELECT * FROM relations WHERE ${TARGET_MATCH} ORDER BY source_uid, pointer`,
    ),
    relationsTargetingUid: db.prepare<[string], RelationRow>(
      'SELECT * FROM relations WHERE target_uid = ? ORDER BY source_uid, pointer',
    ),
    findReservation: db.prepare<[string, string, string], ReservationRow>(
      'SELECT * FROM reservations WHERE tenant = ? AND namespace = ? AND value = ?',
    ),
    // Plain INSERT: a second holder of one (tenant, namespace, value) is a constraint failure,
    // never a silent overwrite (callers check first; this is the engine-level guard).
    saveReservation: db.prepare<ReservationRow>(
      'INSERT INTO reservations (tenant, namespace, value, holder_uid) VALUES (@tenant, @namespace, @value, @holder_uid)',
    ),
    reservationsHeldBy: db.prepare<[string], ReservationRow>(
      'SELECT * FROM reservations WHERE holder_uid = ? ORDER BY namespace, value',
    ),
    deleteReservation: db.prepare<[string, string, string]>(
      'DELETE FROM reservations WHERE tenant = ? AND namespace = ? AND value = ?',
    ),
    bumpSequence: db.prepare<[string, string]>(
      `INSERT INTO sequences (tenant, name, value) VALUES (?, ?, 1)
       ON CONFLICT (tenant, name) DO UPDATE SET value = value + 1`,
    ),
    readSequence: db.prepare<[string, string], { value: number }>('SELECT value FROM sequences WHERE tenant = ? AND name = ?'),
    findPrepareBinding: db.prepare<[string, string], { payload: string }>(
      'SELECT payload FROM prepare_bindings WHERE digest = ? AND tenant = ?',
    ),
    // A digest determines its payload, so saving the same binding again changes nothing.
    savePrepareBinding: db.prepare<[string, string, string]>(
      'INSERT OR IGNORE INTO prepare_bindings (digest, tenant, payload) VALUES (?, ?, ?)',
    ),
    findIdempotencyRecord: db.prepare<ScopeParams, IdempotencyRow>(
      `SELECT * FROM idempotency_records
       WHERE tenant = @tenant AND principal = @principal AND space = @space AND idempotency_key = @idempotency_key`,
    ),
    saveIdempotencyRecord: db.prepare<IdempotencyRow>(
      `INSERT OR REPLACE INTO idempotency_records
         (tenant, principal, space, idempotency_key, fingerprint, status, etag, body, bound_uid, operation_id)
       VALUES (@tenant, @principal, @space, @idempotency_key, @fingerprint, @status, @etag, @body, @bound_uid, @operation_id)`,
    ),
    bindOperationRecords: db.prepare<[string, string]>('UPDATE idempotency_records SET bound_uid = ? WHERE operation_id = ?'),
    findOperation: db.prepare<[string], OperationRow>('SELECT * FROM operations WHERE id = ?'),
    saveOperation: db.prepare<OperationRow>(
      `INSERT OR REPLACE INTO operations (id, tenant, principal, document, pending, polls_left)
       VALUES (@id, @tenant, @principal, @document, @pending, @polls_left)`,
    ),
    findUpload: db.prepare<[string], UploadRow>('SELECT * FROM upload_sessions WHERE id = ?'),
    findOpenUpload: db.prepare<[string, string, string], UploadRow>(
      `SELECT * FROM upload_sessions WHERE tenant = ? AND principal = ? AND manifest_digest = ? AND state = 'open'`,
    ),
    saveUpload: db.prepare<UploadRow>(
      `INSERT OR REPLACE INTO upload_sessions (id, tenant, principal, manifest_digest, manifest, state)
       VALUES (@id, @tenant, @principal, @manifest_digest, @manifest, @state)`,
    ),
    saveBlob: db.prepare<[string, Buffer]>('INSERT OR IGNORE INTO blobs (digest, bytes) VALUES (?, ?)'),
    hasBlob: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE digest = ?'),
    holdsBlob: db.prepare<[string, string], { one: number }>(
      'SELECT 1 AS one FROM blob_holdings WHERE tenant = ? AND digest = ?',
    ),
    grantBlob: db.prepare<[string, string]>('INSERT OR IGNORE INTO blob_holdings (tenant, digest) VALUES (?, ?)'),
    findManifest: db.prepare<[string, string], { manifest: string }>(
      'SELECT manifest FROM manifest_holdings WHERE tenant = ? AND manifest_digest = ?',
    ),
    grantManifest: db.prepare<[string, string, string]>(
      'INSERT OR IGNORE INTO manifest_holdings (tenant, manifest_digest, manifest) VALUES (?, ?, ?)',
    ),
  };
}

function addressParams(address: ResourceAddress): AddressParams {
  return {
    tenant: address.tenant,
    space: address.space,
    form_group: address.group,
    kind: address.kind,
    name: address.name,
  };
}

function scopeParams(scope: IdempotencyScope): ScopeParams {
  return { tenant: scope.tenant, principal: scope.principal, space: scope.space, idempotency_key: scope.key };
}

function rowFromResource(resource: StoredResource): ResourceRow {
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

function resourceFromRow(row: ResourceRow): StoredResource {
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

function rowFromPin(sourceUid: string, pin: RelationPin): RelationRow {
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

function pinFromRow(row: RelationRow): RelationPin {
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

function dependentFromRow(row: RelationRow): DependentPin {
  return { ...pinFromRow(row), sourceUid: row.source_uid };
}

function reservationFromRow(row: ReservationRow): Reservation {
  return { tenant: row.tenant, namespace: row.namespace, value: row.value, holderUid: row.holder_uid };
}

function operationFromRow(row: OperationRow): StoredOperation {
  return {
    id: row.id,
    tenant: row.tenant,
    principal: row.principal,
    document: row.document,
    pending: row.pending ?? undefined,
    pollsLeft: row.polls_left,
  };
}

function uploadFromRow(row: UploadRow): UploadSession {
  return {
    id: row.id,
    tenant: row.tenant,
    principal: row.principal,
    manifestDigest: row.manifest_digest,
    manifest: row.manifest,
    state: row.state,
  };
}

function parseStoredObject(json: string, uid: string): JsonObject {
  const value: unknown = JSON.parse(json);
  if (!isJsonObject(value)) throw new Error(`stored JSON of resource ${uid} is not an object`);
  return value as JsonObject;
}
