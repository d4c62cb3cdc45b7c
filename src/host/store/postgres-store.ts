// HostStore on PostgreSQL through node-postgres (`pg`), for several Host processes on one database.
//
// DECISION (atomic reservations across processes): SERIALIZABLE transactions with retry, plus the
// UNIQUE keys as a second guard. The Host's rules are check-then-write (is the claim value held?
// is the name taken? is there a replay record for this key?) spread over many statements, some of
// them in route code far from the store; SERIALIZABLE makes every such sequence behave as if the
// transactions had run one at a time, so a rule needs no SQL of its own to be correct across
// processes. A unique constraint alone would cover only the rules that are one INSERT. The cost
// is serialization failures (SQLSTATE 40001, and 40P01 for deadlocks) under contention: the whole
// attempt is rolled back and `work` runs again, and the retry sees the winner's commit (then it
// answers the loser's refusal or replays the winner's record). When a check read the key, PostgreSQL
// reports a concurrent duplicate as 40001, not as a unique violation, so the UNIQUE keys fire only
// on a genuine defect.
//
// Transactions of one process run concurrently on a pool of connections; nothing here is held in
// memory between transactions, so any process can answer any request.
import pg from 'pg';
import { HostError } from '../errors.js';
import { migratePostgresSchema } from './postgres-schema.js';
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
  type IdempotencyRow,
  type OperationRow,
  type RelationRow,
  type ReservationRow,
  type ResourceRow,
  type UploadRow,
} from './rows.js';
import type { HostStore, ResourceAddress, StoreTransaction, TransactionOptions } from './store.js';

/** Whether `db` (the --db value) names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

export interface PostgresStoreOptions {
  /** Connections per Host process (default 10). */
  readonly poolSize?: number;
  /** Attempts of one transaction before giving up with resource_busy (default 40). */
  readonly maxAttempts?: number;
  /** Where pool errors of idle connections go (a dropped server connection must not crash the Host). */
  readonly log?: (line: string) => void;
}

const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);
/** The first key of the two-key advisory locks that queue transactions (any fixed number). */
const QUEUE_LOCK_CLASS = 716_018;

type Client = pg.PoolClient;

export class PostgresHostStore implements HostStore {
  private closing: Promise<void> | undefined;
  /** Tail of each queue key's chain of transactions in this process. */
  private readonly queues = new Map<string, Promise<void>>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly maxAttempts: number,
  ) {}

  /** Connects, migrates the schema to this Host's version, and keeps a pool open. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresHostStore> {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    const log = options.log ?? (() => {});
    pool.on('error', (error) => log(`PostgreSQL connection error (the pool replaces the connection): ${error.message}`));
    // Under SERIALIZABLE a sequential scan takes a predicate lock on the whole table, so while the
    // tables are small (when the planner prefers scans) every pair of concurrent writers of a table
    // conflicts and one of them is retried. Index scans lock only the index pages they read
    // (PostgreSQL manual, "Serializable Isolation Level", on reducing serialization failures).
    pool.on('connect', (client) => {
      client.query('SET enable_seqscan = off').catch((error: unknown) => log(`could not prefer index scans: ${(error as Error).message}`));
    });
    try {
      const client = await pool.connect();
      try {
        await migratePostgresSchema(client);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresHostStore(pool, options.maxAttempts ?? 40);
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const { queue } = options;
    if (queue === undefined) return this.attempts(work, undefined);
    // In this process, one transaction per key at a time (so waiters hold no connection); across
    // processes, a session advisory lock on the key, taken before BEGIN so that the snapshot is
    // taken after the previous holder committed. The server drops the lock if the connection dies.
    const previous = this.queues.get(queue) ?? Promise.resolve();
    const result = previous.then(
      () => this.attempts(work, queue),
      () => this.attempts(work, queue),
    );
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(queue, tail);
    void tail.then(() => {
      if (this.queues.get(queue) === tail) this.queues.delete(queue);
    });
    return result;
  }

  private async attempts<T>(work: (tx: StoreTransaction) => Promise<T>, queue: string | undefined): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      // A connection whose ROLLBACK or unlock failed is in an unknown state: destroyed, never reused.
      let reusable = true;
      const markBroken = (): void => {
        reusable = false;
      };
      try {
        if (queue !== undefined) await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [QUEUE_LOCK_CLASS, queue]);
        try {
          return await runSerializable(client, work, markBroken);
        } finally {
          if (queue !== undefined && reusable) {
            await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [QUEUE_LOCK_CLASS, queue]).catch(markBroken);
          }
        }
      } catch (error) {
        if (!isSerializationFailure(error)) throw error;
        if (attempt >= this.maxAttempts) {
          throw new HostError('resource_busy', 'the Host could not serialize this request against concurrent ones; retry shortly', {
            retryable: true,
          });
        }
      } finally {
        client.release(!reusable);
      }
      await backoff(attempt);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }

  private async connect(): Promise<Client> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw new HostError('backend_unavailable', `the Host's database is unreachable: ${(error as Error).message}`, { retryable: true });
    }
  }
}

/** One attempt: BEGIN SERIALIZABLE, `work`, COMMIT; any throw rolls back and is rethrown. */
async function runSerializable<T>(client: Client, work: (tx: StoreTransaction) => Promise<T>, markBroken: () => void): Promise<T> {
  await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
  try {
    const result = await work(transactionView(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(markBroken);
    throw error;
  }
}

function isSerializationFailure(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code !== undefined && RETRYABLE_SQLSTATES.has(error.code);
}

/** Full jitter, growing to ~100 ms: the losers of a race spread out instead of colliding again. */
function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(100, 2 * 2 ** Math.min(attempt, 6));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

const ADDRESS_MATCH = 'tenant = $1 AND space = $2 AND form_group = $3 AND kind = $4 AND name = $5';
const TARGET_MATCH = 'target_tenant = $1 AND target_space = $2 AND target_group = $3 AND target_kind = $4 AND target_name = $5';

function addressValues(address: ResourceAddress): string[] {
  const p = addressParams(address);
  return [p.tenant, p.space, p.form_group, p.kind, p.name];
}

function transactionView(client: Client): StoreTransaction {
  let savepoints = 0;
  const rows = async <R extends pg.QueryResultRow>(sql: string, values: readonly unknown[]): Promise<R[]> => (await client.query<R>(sql, [...values])).rows;
  const first = async <R extends pg.QueryResultRow>(sql: string, values: readonly unknown[]): Promise<R | undefined> => (await rows<R>(sql, values))[0];
  const run = async (sql: string, values: readonly unknown[]): Promise<number> => (await client.query(sql, [...values])).rowCount ?? 0;

  return {
    findResource: async (address) => {
      const row = await first<ResourceRow>(`SELECT * FROM resources WHERE ${ADDRESS_MATCH}`, addressValues(address));
      return row === undefined ? undefined : resourceFromRow(row);
    },
    findResourceByUid: async (uid) => {
      const row = await first<ResourceRow>('SELECT * FROM resources WHERE uid = $1', [uid]);
      return row === undefined ? undefined : resourceFromRow(row);
    },
    insertResource: async (resource) => {
      const r = rowFromResource(resource);
      await run(
        `INSERT INTO resources (uid, tenant, space, form_group, kind, name, definition_version, schema_digest,
           package_digest, generation, revision, spec_json, spec_digest, status_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          r.uid,
          r.tenant,
          r.space,
          r.form_group,
          r.kind,
          r.name,
          r.definition_version,
          r.schema_digest,
          r.package_digest,
          r.generation,
          r.revision,
          r.spec_json,
          r.spec_digest,
          r.status_json,
        ],
      );
    },
    updateResource: async (resource) => {
      const r = rowFromResource(resource);
      const changed = await run(
        `UPDATE resources SET definition_version = $2, schema_digest = $3, package_digest = $4, generation = $5,
           revision = $6, spec_json = $7, spec_digest = $8, status_json = $9
         WHERE uid = $1`,
        [r.uid, r.definition_version, r.schema_digest, r.package_digest, r.generation, r.revision, r.spec_json, r.spec_digest, r.status_json],
      );
      if (changed !== 1) throw new Error(`no stored resource has uid ${resource.uid}`);
    },
    deleteResource: async (uid) => {
      await run('DELETE FROM resources WHERE uid = $1', [uid]);
    },
    replaceRelations: async (sourceUid, pins) => {
      await run('DELETE FROM relations WHERE source_uid = $1', [sourceUid]);
      for (const pin of pins) {
        const r = rowFromPin(sourceUid, pin);
        await run(
          `INSERT INTO relations (source_uid, pointer, relation, target_tenant, target_space, target_group, target_kind,
             target_name, target_uid, target_version, target_digest, binding_ref)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            r.source_uid,
            r.pointer,
            r.relation,
            r.target_tenant,
            r.target_space,
            r.target_group,
            r.target_kind,
            r.target_name,
            r.target_uid,
            r.target_version,
            r.target_digest,
            r.binding_ref,
          ],
        );
      }
    },
    relationsOf: async (sourceUid) => (await rows<RelationRow>('SELECT * FROM relations WHERE source_uid = $1 ORDER BY pointer', [sourceUid])).map(pinFromRow),
    relationsTargetingAddress: async (address) =>
      (await rows<RelationRow>(`SELECT * FROM relations WHERE ${TARGET_MATCH} ORDER BY source_uid, pointer`, addressValues(address))).map(dependentFromRow),
    relationsTargetingUid: async (uid) =>
      (await rows<RelationRow>('SELECT * FROM relations WHERE target_uid = $1 ORDER BY source_uid, pointer', [uid])).map(dependentFromRow),
    findReservation: async (tenant, namespace, value) => {
      const row = await first<ReservationRow>('SELECT * FROM reservations WHERE tenant = $1 AND namespace = $2 AND value = $3', [tenant, namespace, value]);
      return row === undefined ? undefined : reservationFromRow(row);
    },
    // Plain INSERT: a second holder is a constraint failure, never a silent overwrite.
    saveReservation: async (reservation) => {
      const r = rowFromReservation(reservation);
      await run('INSERT INTO reservations (tenant, namespace, value, holder_uid) VALUES ($1, $2, $3, $4)', [r.tenant, r.namespace, r.value, r.holder_uid]);
    },
    reservationsHeldBy: async (holderUid) =>
      (await rows<ReservationRow>('SELECT * FROM reservations WHERE holder_uid = $1 ORDER BY namespace, value', [holderUid])).map(reservationFromRow),
    releaseReservations: async (holderUid, namespacePrefix) => {
      await run('DELETE FROM reservations WHERE holder_uid = $1 AND left(namespace, length($2)) = $2', [holderUid, namespacePrefix]);
    },
    nextSequence: async (tenant, name) => {
      const row = await first<{ value: string }>(
        `INSERT INTO sequences (tenant, name, value) VALUES ($1, $2, 1)
         ON CONFLICT (tenant, name) DO UPDATE SET value = sequences.value + 1 RETURNING value`,
        [tenant, name],
      );
      if (row === undefined) throw new Error(`sequence ${name} vanished`);
      // BIGINT arrives as a string; sequences count resources, far below 2^53.
      return Number(row.value);
    },
    findPrepareBinding: async (digest, tenant) => {
      const row = await first<{ payload: string }>('SELECT payload FROM prepare_bindings WHERE digest = $1 AND tenant = $2', [digest, tenant]);
      return row === undefined ? undefined : { digest, tenant, payload: row.payload };
    },
    // A digest determines its payload, so saving the same binding again changes nothing.
    savePrepareBinding: async (binding) => {
      await run('INSERT INTO prepare_bindings (digest, tenant, payload) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        binding.digest,
        binding.tenant,
        binding.payload,
      ]);
    },
    findIdempotencyRecord: async (scope) => {
      const p = scopeParams(scope);
      const row = await first<IdempotencyRow>(
        'SELECT * FROM idempotency_records WHERE tenant = $1 AND principal = $2 AND space = $3 AND idempotency_key = $4',
        [p.tenant, p.principal, p.space, p.idempotency_key],
      );
      return row === undefined ? undefined : idempotencyFromRow(scope, row);
    },
    saveIdempotencyRecord: async (record) => {
      const r = rowFromIdempotency(record);
      await run(
        `INSERT INTO idempotency_records (tenant, principal, space, idempotency_key, fingerprint, status, etag, body, bound_uid, operation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (tenant, principal, space, idempotency_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
           status = EXCLUDED.status, etag = EXCLUDED.etag, body = EXCLUDED.body, bound_uid = EXCLUDED.bound_uid,
           operation_id = EXCLUDED.operation_id`,
        [r.tenant, r.principal, r.space, r.idempotency_key, r.fingerprint, r.status, r.etag, r.body, r.bound_uid, r.operation_id],
      );
    },
    bindOperationRecords: async (operationId, uid) => {
      await run('UPDATE idempotency_records SET bound_uid = $1 WHERE operation_id = $2', [uid, operationId]);
    },
    findOperation: async (id) => {
      const row = await first<OperationRow>('SELECT id, tenant, principal, document, pending, polls_left FROM operations WHERE id = $1', [id]);
      return row === undefined ? undefined : operationFromRow(row);
    },
    // An upsert that keeps the lease columns; a terminal Operation is no longer due.
    saveOperation: async (operation) => {
      const r = rowFromOperation(operation);
      await run(
        `INSERT INTO operations (id, tenant, principal, document, pending, polls_left) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document, pending = EXCLUDED.pending, polls_left = EXCLUDED.polls_left,
           commit_requested = (EXCLUDED.pending IS NOT NULL AND operations.commit_requested)`,
        [r.id, r.tenant, r.principal, r.document, r.pending, r.polls_left],
      );
    },
    findUpload: async (id) => {
      const row = await first<UploadRow>('SELECT * FROM upload_sessions WHERE id = $1', [id]);
      return row === undefined ? undefined : uploadFromRow(row);
    },
    findOpenUpload: async (tenant, principal, manifestDigest) => {
      const row = await first<UploadRow>(`SELECT * FROM upload_sessions WHERE tenant = $1 AND principal = $2 AND manifest_digest = $3 AND state = 'open'`, [
        tenant,
        principal,
        manifestDigest,
      ]);
      return row === undefined ? undefined : uploadFromRow(row);
    },
    saveUpload: async (upload) => {
      const r = rowFromUpload(upload);
      await run(
        `INSERT INTO upload_sessions (id, tenant, principal, manifest_digest, manifest, state) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET tenant = EXCLUDED.tenant, principal = EXCLUDED.principal,
           manifest_digest = EXCLUDED.manifest_digest, manifest = EXCLUDED.manifest, state = EXCLUDED.state`,
        [r.id, r.tenant, r.principal, r.manifest_digest, r.manifest, r.state],
      );
    },
    saveBlob: async (digest, bytes) => {
      await run('INSERT INTO blobs (digest, bytes) VALUES ($1, $2) ON CONFLICT DO NOTHING', [digest, Buffer.from(bytes)]);
    },
    hasBlobBytes: async (digest) => (await first('SELECT 1 AS one FROM blobs WHERE digest = $1', [digest])) !== undefined,
    holdsBlob: async (tenant, digest) => (await first('SELECT 1 AS one FROM blob_holdings WHERE tenant = $1 AND digest = $2', [tenant, digest])) !== undefined,
    grantBlob: async (tenant, digest) => {
      await run('INSERT INTO blob_holdings (tenant, digest) VALUES ($1, $2) ON CONFLICT DO NOTHING', [tenant, digest]);
    },
    findManifest: async (tenant, manifestDigest) =>
      (await first<{ manifest: string }>('SELECT manifest FROM manifest_holdings WHERE tenant = $1 AND manifest_digest = $2', [tenant, manifestDigest]))
        ?.manifest,
    grantManifest: async (tenant, manifestDigest, manifest) => {
      await run('INSERT INTO manifest_holdings (tenant, manifest_digest, manifest) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        tenant,
        manifestDigest,
        manifest,
      ]);
    },
    // Lease times are the database's clock, the one clock every Host process shares.
    acquireOperationLease: async (id, holder, ttlMs) =>
      (await run(
        `UPDATE operations SET lease_holder = $2, lease_expires = clock_timestamp() + $3 * interval '1 millisecond'
         WHERE id = $1 AND (lease_holder IS NULL OR lease_holder = $2 OR lease_expires < clock_timestamp())`,
        [id, holder, ttlMs],
      )) === 1,
    requestOperationCommit: async (id) => {
      await run('UPDATE operations SET commit_requested = TRUE WHERE id = $1 AND pending IS NOT NULL', [id]);
    },
    dueOperations: async (holder, limit) =>
      (
        await rows<{ id: string }>(
          `SELECT id FROM operations WHERE pending IS NOT NULL AND commit_requested
             AND (lease_holder = $1 OR lease_holder IS NULL OR lease_expires < clock_timestamp())
           ORDER BY id LIMIT $2`,
          [holder, limit],
        )
      ).map((row) => row.id),
    renewOperationLeases: async (holder, ttlMs) => {
      await run(
        `UPDATE operations SET lease_expires = clock_timestamp() + $2 * interval '1 millisecond'
         WHERE lease_holder = $1 AND pending IS NOT NULL`,
        [holder, ttlMs],
      );
    },
    releaseOperationLeases: async (holder) => {
      await run('UPDATE operations SET lease_holder = NULL, lease_expires = NULL WHERE lease_holder = $1', [holder]);
    },
    savepoint: async (work) => {
      savepoints += 1;
      const name = `sp_${savepoints}`;
      await client.query(`SAVEPOINT ${name}`);
      try {
        const result = await work();
        await client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        // If even this fails (a lost connection), the original error is the one worth reporting;
        // the enclosing transaction rolls back either way.
        await client.query(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`).catch(() => undefined);
        throw error;
      }
    },
  };
}
