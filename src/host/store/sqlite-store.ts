// HostStore on better-sqlite3. One connection, statements prepared once, WAL for file databases
// (':memory:' has no WAL), foreign keys on so retiring idempotency records is the database's job.
import Database from 'better-sqlite3';
import { canonicalJson } from '../../common/digest.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { migrateSqliteSchema } from './sqlite-schema.js';
import type {
  HostStore,
  IdempotencyRecord,
  IdempotencyScope,
  PrepareBinding,
  ResourceAddress,
  StoreTransaction,
  StoredResource,
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
}

export class SqliteHostStore implements HostStore, StoreTransaction {
  private readonly statements: Statements;
  private readonly runTransaction: Database.Transaction<(work: () => unknown) => unknown>;

  private constructor(private readonly db: Database.Database) {
    this.statements = prepareStatements(db);
    // Created once; nested calls become savepoints (better-sqlite3 does this itself).
    this.runTransaction = db.transaction((work: () => unknown) => work());
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

  transaction<T>(work: (tx: StoreTransaction) => T): T {
    // IMMEDIATE takes the write lock up front: a check-then-write can never be overtaken.
    return this.runTransaction.immediate(() => work(this)) as T;
  }

  savepoint<T>(work: () => T): T {
    return this.runTransaction(work) as T;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  findResource(address: ResourceAddress): StoredResource | undefined {
    const row = this.statements.findResource.get(addressParams(address));
    return row === undefined ? undefined : resourceFromRow(row);
  }

  insertResource(resource: StoredResource): void {
    this.statements.insertResource.run(rowFromResource(resource));
  }

  updateResource(resource: StoredResource): void {
    const result = this.statements.updateResource.run(rowFromResource(resource));
    if (result.changes !== 1) throw new Error(`no stored resource has uid ${resource.uid}`);
  }

  deleteResource(uid: string): void {
    this.statements.deleteResource.run(uid);
  }

  findPrepareBinding(digest: string, tenant: string): PrepareBinding | undefined {
    const row = this.statements.findPrepareBinding.get(digest, tenant);
    return row === undefined ? undefined : { digest, tenant, payload: row.payload };
  }

  savePrepareBinding(binding: PrepareBinding): void {
    this.statements.savePrepareBinding.run(binding.digest, binding.tenant, binding.payload);
  }

  findIdempotencyRecord(scope: IdempotencyScope): IdempotencyRecord | undefined {
    const row = this.statements.findIdempotencyRecord.get(scopeParams(scope));
    if (row === undefined) return undefined;
    return {
      scope,
      fingerprint: row.fingerprint,
      status: row.status,
      etag: row.etag ?? undefined,
      body: row.body,
      boundUid: row.bound_uid ?? undefined,
    };
  }

  saveIdempotencyRecord(record: IdempotencyRecord): void {
    this.statements.saveIdempotencyRecord.run({
      ...scopeParams(record.scope),
      fingerprint: record.fingerprint,
      status: record.status,
      etag: record.etag ?? null,
      body: Buffer.from(record.body),
      bound_uid: record.boundUid ?? null,
    });
  }
}

type Statements = ReturnType<typeof prepareStatements>;

// Prepared once per connection; the return type names the statements for the class field.
function prepareStatements(db: Database.Database) {
  return {
    findResource: db.prepare<AddressParams, ResourceRow>(
      `SELECT * FROM resources
       WHERE tenant = @tenant AND space = @space AND form_group = @form_group AND kind = @kind AND name = @name`,
    ),
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
         (tenant, principal, space, idempotency_key, fingerprint, status, etag, body, bound_uid)
       VALUES (@tenant, @principal, @space, @idempotency_key, @fingerprint, @status, @etag, @body, @bound_uid)`,
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

function parseStoredObject(json: string, uid: string): JsonObject {
  const value: unknown = JSON.parse(json);
  if (!isJsonObject(value)) throw new Error(`stored JSON of resource ${uid} is not an object`);
  return value as JsonObject;
}
