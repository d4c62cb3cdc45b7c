// The PostgreSQL schema, versioned in the table takoform_schema (one row: the version). Each entry
// of MIGRATIONS moves the database one version forward, in its own transaction; a database
// written by a newer Host is refused, never guessed at. Several Host processes may start at
// once on one database: a transaction-scoped advisory lock makes them migrate one after another.
//
// Tables and columns are the SQLite store's (see sqlite-schema.ts), so one row mapping
// (rows.ts) serves both engines. Versions here are not SQLite's: this history starts at the
// SQLite schema's version 4 in one step.
import type { PoolClient } from 'pg';

const MIGRATIONS: readonly string[] = [
  // Version 1: everything SQLite's versions 1-4 hold.
  `
  CREATE TABLE resources (
    uid                TEXT PRIMARY KEY,
    tenant             TEXT NOT NULL,
    space              TEXT NOT NULL,
    form_group         TEXT NOT NULL,
    kind               TEXT NOT NULL,
    name               TEXT NOT NULL,
    definition_version TEXT NOT NULL,
    schema_digest      TEXT NOT NULL,
    package_digest     TEXT,
    generation         TEXT NOT NULL,
    revision           TEXT NOT NULL,
    spec_json          TEXT NOT NULL,
    spec_digest        TEXT NOT NULL,
    status_json        TEXT NOT NULL,
    -- Names are unique per tenant, space, group and kind across definition versions.
    UNIQUE (tenant, space, form_group, kind, name)
  );

  CREATE TABLE prepare_bindings (
    digest  TEXT NOT NULL,
    tenant  TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (digest, tenant)
  );

  CREATE TABLE idempotency_records (
    tenant          TEXT NOT NULL,
    principal       TEXT NOT NULL,
    space           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    status          INTEGER NOT NULL,
    etag            TEXT,
    body            BYTEA NOT NULL,
    -- Deleting the incarnation a record reports retires the record (wire reference §10.2).
    bound_uid       TEXT REFERENCES resources (uid) ON DELETE CASCADE,
    operation_id    TEXT,
    PRIMARY KEY (tenant, principal, space, idempotency_key)
  );
  CREATE INDEX idempotency_records_by_bound_uid ON idempotency_records (bound_uid);
  CREATE INDEX idempotency_records_by_operation ON idempotency_records (operation_id);

  CREATE TABLE relations (
    source_uid        TEXT NOT NULL REFERENCES resources (uid) ON DELETE CASCADE,
    pointer           TEXT NOT NULL,
    relation          TEXT NOT NULL,
    target_tenant     TEXT NOT NULL,
    target_space      TEXT NOT NULL,
    target_group      TEXT NOT NULL,
    target_kind       TEXT NOT NULL,
    target_name       TEXT NOT NULL,
    -- No foreign key: a pinned target may vanish out of band, and the pin must say what it was.
    target_uid        TEXT NOT NULL,
    target_version    TEXT NOT NULL,
    target_digest     TEXT NOT NULL,
    binding_ref       TEXT,
    PRIMARY KEY (source_uid, pointer)
  );
  CREATE INDEX relations_by_target_address ON relations (target_tenant, target_space, target_group, target_kind, target_name);
  CREATE INDEX relations_by_target_uid ON relations (target_uid);

  -- The primary key is the uniqueness rule: one holder per (tenant, namespace, value).
  CREATE TABLE reservations (
    tenant     TEXT NOT NULL,
    namespace  TEXT NOT NULL,
    value      TEXT NOT NULL,
    holder_uid TEXT NOT NULL REFERENCES resources (uid) ON DELETE CASCADE,
    PRIMARY KEY (tenant, namespace, value)
  );
  CREATE INDEX reservations_by_holder ON reservations (holder_uid);

  CREATE TABLE sequences (
    tenant TEXT NOT NULL,
    name   TEXT NOT NULL,
    value  BIGINT NOT NULL,
    PRIMARY KEY (tenant, name)
  );

  -- lease_holder / lease_expires: the Host process that advances the Operation, until when.
  CREATE TABLE operations (
    id               TEXT PRIMARY KEY,
    tenant           TEXT NOT NULL,
    principal        TEXT NOT NULL,
    document         TEXT NOT NULL,
    pending          TEXT,
    polls_left       INTEGER NOT NULL,
    lease_holder     TEXT,
    lease_expires    TIMESTAMPTZ,
    commit_requested BOOLEAN NOT NULL DEFAULT FALSE
  );

  CREATE TABLE upload_sessions (
    id              TEXT PRIMARY KEY,
    tenant          TEXT NOT NULL,
    principal       TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    manifest        TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('open', 'committed', 'abandoned'))
  );
  CREATE INDEX upload_sessions_by_manifest ON upload_sessions (tenant, principal, manifest_digest, state);

  -- Bytes are stored once per digest; who may see them is blob_holdings' business.
  CREATE TABLE blobs (
    digest TEXT PRIMARY KEY,
    bytes  BYTEA NOT NULL
  );
  CREATE TABLE blob_holdings (
    tenant TEXT NOT NULL,
    digest TEXT NOT NULL REFERENCES blobs (digest),
    PRIMARY KEY (tenant, digest)
  );
  CREATE TABLE manifest_holdings (
    tenant          TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    manifest        TEXT NOT NULL,
    PRIMARY KEY (tenant, manifest_digest)
  );
  `,
];

export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Any 64-bit number, fixed: the advisory lock every Host process takes to migrate. */
const MIGRATION_LOCK = 7_160_018_001;

export async function migratePostgresSchema(client: PoolClient): Promise<void> {
  for (;;) {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS takoform_schema (version INTEGER NOT NULL)');
      const rows = (await client.query<{ version: number }>('SELECT version FROM takoform_schema')).rows;
      const current = rows[0]?.version ?? 0;
      if (current > POSTGRES_SCHEMA_VERSION) {
        throw new Error(`database schema version ${current} is newer than this Host understands (${POSTGRES_SCHEMA_VERSION})`);
      }
      if (current === POSTGRES_SCHEMA_VERSION) {
        await client.query('COMMIT');
        return;
      }
      await client.query(MIGRATIONS[current]!);
      if (rows.length === 0) await client.query('INSERT INTO takoform_schema (version) VALUES ($1)', [current + 1]);
      else await client.query('UPDATE takoform_schema SET version = $1', [current + 1]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  }
}
