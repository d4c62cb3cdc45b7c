// HostStore on better-sqlite3. One connection, statements prepared once, WAL for file databases
// (':memory:' has no WAL), foreign keys on so that deleting an incarnation releases its relations,
// reservations and bound idempotency records in the database itself.
//
// The store contract is asynchronous (see store.ts for why). better-sqlite3's own transaction
// helper only wraps synchronous functions, so transactions are driven with explicit BEGIN
// IMMEDIATE / COMMIT / ROLLBACK and SAVEPOINT statements, and whole transactions are serialized
// by a promise-chain mutex: while one transaction awaits, no other can touch the connection.
import Database from 'better-sqlite3';
import {
  addressParams,
  dependentFromRow,
  idempotencyFromRow,
  operationFromRow,
  pinFromRow,
  reservationFromRow,
  resourceFromRow,
  rowFromIdempotency,
  rowFromOperation,
  rowFromPin,
  rowFromReservation,
  rowFromResource,
  rowFromUpload,
  scopeParams,
  uploadFromRow,
  type AddressParams,
  type IdempotencyRow,
  type OperationRow,
  type RelationRow,
  type ReservationRow,
  type ResourceRow,
  type ScopeParams,
  type UploadRow,
} from './rows.js';
import { migrateSqliteSchema } from './sqlite-schema.js';
import type { HostStore, IdempotencyRecord, IdempotencyScope, PrepareBinding, StoreTransaction, StoredOperation } from './store.js';

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

  // `options.queue` needs nothing here: every transaction already runs alone.
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

  async close(): Promise<void> {
    // Let a transaction still running finish before the connection goes.
    await this.queue;
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
        s.saveReservation.run(rowFromReservation(reservation));
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
        return row === undefined ? undefined : idempotencyFromRow(scope, row);
      },
      saveIdempotencyRecord: async (record) => {
        s.saveIdempotencyRecord.run(rowFromIdempotency(record));
      },
      bindOperationRecords: async (operationId, uid) => {
        s.bindOperationRecords.run(uid, operationId);
      },
      findOperation: async (id) => {
        const row = s.findOperation.get(id);
        return row === undefined ? undefined : operationFromRow(row);
      },
      saveOperation: async (operation: StoredOperation) => {
        s.saveOperation.run(rowFromOperation(operation));
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
        s.saveUpload.run(rowFromUpload(upload));
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
      // Lease times are this process's clock: SQLite has one machine, so all holders share it.
      acquireOperationLease: async (id, holder, ttlMs) => {
        const now = Date.now();
        return s.acquireLease.run({ id, holder, now, expires: now + ttlMs }).changes === 1;
      },
      requestOperationCommit: async (id) => {
        s.requestCommit.run(id);
      },
      dueOperations: async (holder, limit) => s.dueOperations.all({ holder, now: Date.now(), limit }).map((row) => row.id),
      renewOperationLeases: async (holder, ttlMs) => {
        s.renewLeases.run({ holder, expires: Date.now() + ttlMs });
      },
      releaseOperationLeases: async (holder) => {
        s.releaseLeases.run(holder);
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
const TARGET_MATCH = 'target_tenant = @tenant AND target_space = @space AND target_group = @form_group AND target_kind = @kind AND target_name = @name';

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
    relationsTargetingAddress: db.prepare<AddressParams, RelationRow>(`SELECT * FROM relations WHERE ${TARGET_MATCH} ORDER BY source_uid, pointer`),
    relationsTargetingUid: db.prepare<[string], RelationRow>('SELECT * FROM relations WHERE target_uid = ? ORDER BY source_uid, pointer'),
    findReservation: db.prepare<[string, string, string], ReservationRow>('SELECT * FROM reservations WHERE tenant = ? AND namespace = ? AND value = ?'),
    // Plain INSERT: a second holder of one (tenant, namespace, value) is a constraint failure,
    // never a silent overwrite (callers check first; this is the engine-level guard).
    saveReservation: db.prepare<ReservationRow>(
      'INSERT INTO reservations (tenant, namespace, value, holder_uid) VALUES (@tenant, @namespace, @value, @holder_uid)',
    ),
    reservationsHeldBy: db.prepare<[string], ReservationRow>('SELECT * FROM reservations WHERE holder_uid = ? ORDER BY namespace, value'),
    deleteReservation: db.prepare<[string, string, string]>('DELETE FROM reservations WHERE tenant = ? AND namespace = ? AND value = ?'),
    bumpSequence: db.prepare<[string, string]>(
      `INSERT INTO sequences (tenant, name, value) VALUES (?, ?, 1)
       ON CONFLICT (tenant, name) DO UPDATE SET value = value + 1`,
    ),
    readSequence: db.prepare<[string, string], { value: number }>('SELECT value FROM sequences WHERE tenant = ? AND name = ?'),
    findPrepareBinding: db.prepare<[string, string], { payload: string }>('SELECT payload FROM prepare_bindings WHERE digest = ? AND tenant = ?'),
    // A digest determines its payload, so saving the same binding again changes nothing.
    savePrepareBinding: db.prepare<[string, string, string]>('INSERT OR IGNORE INTO prepare_bindings (digest, tenant, payload) VALUES (?, ?, ?)'),
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
    // An upsert, not INSERT OR REPLACE: replacing the row would drop its lease columns.
    saveOperation: db.prepare<OperationRow>(
      `INSERT INTO operations (id, tenant, principal, document, pending, polls_left)
       VALUES (@id, @tenant, @principal, @document, @pending, @polls_left)
       ON CONFLICT (id) DO UPDATE SET document = excluded.document, pending = excluded.pending,
         polls_left = excluded.polls_left,
         commit_requested = CASE WHEN excluded.pending IS NULL THEN 0 ELSE commit_requested END`,
    ),
    acquireLease: db.prepare<{ id: string; holder: string; now: number; expires: number }>(
      `UPDATE operations SET lease_holder = @holder, lease_expires = @expires
       WHERE id = @id AND (lease_holder IS NULL OR lease_holder = @holder OR lease_expires < @now)`,
    ),
    requestCommit: db.prepare<[string]>('UPDATE operations SET commit_requested = 1 WHERE id = ? AND pending IS NOT NULL'),
    dueOperations: db.prepare<{ holder: string; now: number; limit: number }, { id: string }>(
      `SELECT id FROM operations WHERE pending IS NOT NULL AND commit_requested = 1
         AND (lease_holder = @holder OR lease_holder IS NULL OR lease_expires < @now)
       ORDER BY id LIMIT @limit`,
    ),
    releaseLeases: db.prepare<[string]>('UPDATE operations SET lease_holder = NULL, lease_expires = NULL WHERE lease_holder = ?'),
    renewLeases: db.prepare<{ holder: string; expires: number }>(
      'UPDATE operations SET lease_expires = @expires WHERE lease_holder = @holder AND pending IS NOT NULL',
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
    holdsBlob: db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM blob_holdings WHERE tenant = ? AND digest = ?'),
    grantBlob: db.prepare<[string, string]>('INSERT OR IGNORE INTO blob_holdings (tenant, digest) VALUES (?, ?)'),
    findManifest: db.prepare<[string, string], { manifest: string }>('SELECT manifest FROM manifest_holdings WHERE tenant = ? AND manifest_digest = ?'),
    grantManifest: db.prepare<[string, string, string]>('INSERT OR IGNORE INTO manifest_holdings (tenant, manifest_digest, manifest) VALUES (?, ?, ?)'),
  };
}
