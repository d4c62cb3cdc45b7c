// The SQLite schema, versioned with PRAGMA user_version. Each entry of MIGRATIONS moves the
// database one version forward; a database written by a newer Host is refused, never guessed at.
import type Database from 'better-sqlite3';

const MIGRATIONS: readonly string[] = [
  // Version 1: resources, prepare bindings, idempotency records.
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
  ) STRICT;

  CREATE TABLE prepare_bindings (
    digest  TEXT NOT NULL,
    tenant  TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (digest, tenant)
  ) STRICT;

  CREATE TABLE idempotency_records (
    tenant          TEXT NOT NULL,
    principal       TEXT NOT NULL,
    space           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    status          INTEGER NOT NULL,
    etag            TEXT,
    body            BLOB NOT NULL,
    -- Deleting the incarnation a record reports retires the record (wire reference §10.2).
    bound_uid       TEXT REFERENCES resources (uid) ON DELETE CASCADE,
    PRIMARY KEY (tenant, principal, space, idempotency_key)
  ) STRICT;

  CREATE INDEX idempotency_records_by_bound_uid ON idempotency_records (bound_uid);
  `,
  // Version 2: relation pins, uniqueness reservations, sequences, operations, artifacts.
  `
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
  ) STRICT;
  CREATE INDEX relations_by_target_address ON relations (target_tenant, target_space, target_group, target_kind, target_name);
  CREATE INDEX relations_by_target_uid ON relations (target_uid);

  -- The primary key is the uniqueness rule: one holder per (tenant, namespace, value).
  CREATE TABLE reservations (
    tenant     TEXT NOT NULL,
    namespace  TEXT NOT NULL,
    value      TEXT NOT NULL,
    holder_uid TEXT NOT NULL REFERENCES resources (uid) ON DELETE CASCADE,
    PRIMARY KEY (tenant, namespace, value)
  ) STRICT;
  CREATE INDEX reservations_by_holder ON reservations (holder_uid);

  CREATE TABLE sequences (
    tenant TEXT NOT NULL,
    name   TEXT NOT NULL,
    value  INTEGER NOT NULL,
    PRIMARY KEY (tenant, name)
  ) STRICT;

  CREATE TABLE operations (
    id         TEXT PRIMARY KEY,
    tenant     TEXT NOT NULL,
    principal  TEXT NOT NULL,
    document   TEXT NOT NULL,
    pending    TEXT,
    polls_left INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE upload_sessions (
    id              TEXT PRIMARY KEY,
    tenant          TEXT NOT NULL,
    principal       TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    manifest        TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('open', 'committed', 'abandoned'))
  ) STRICT;
  CREATE INDEX upload_sessions_by_manifest ON upload_sessions (tenant, principal, manifest_digest, state);

  -- Bytes are stored once per digest; who may see them is blob_holdings' business.
  CREATE TABLE blobs (
    digest TEXT PRIMARY KEY,
    bytes  BLOB NOT NULL
  ) STRICT;
  CREATE TABLE blob_holdings (
    tenant TEXT NOT NULL,
    digest TEXT NOT NULL REFERENCES blobs (digest),
    PRIMARY KEY (tenant, digest)
  ) STRICT;
  CREATE TABLE manifest_holdings (
    tenant          TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    manifest        TEXT NOT NULL,
    PRIMARY KEY (tenant, manifest_digest)
  ) STRICT;
  `,
  // Version 3: a record that answered 202 follows its Operation (wire reference §10.2): once the
  // Operation commits, the record is bound to the incarnation it produced, so deleting that
  // incarnation retires the record like a direct answer's.
  `
  ALTER TABLE idempotency_records ADD COLUMN operation_id TEXT;
  CREATE INDEX idempotency_records_by_operation ON idempotency_records (operation_id);
  `,
  // Version 4: Operation leases (see store.ts acquireOperationLease). An Operation is advanced by
  // the Host process holding its lease; lease_expires is milliseconds since the epoch.
  `
  ALTER TABLE operations ADD COLUMN lease_holder TEXT;
  ALTER TABLE operations ADD COLUMN lease_expires INTEGER;
  ALTER TABLE operations ADD COLUMN commit_requested INTEGER NOT NULL DEFAULT 0;
  `,
];

export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

export function migrateSqliteSchema(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true });
  if (typeof current !== 'number' || current > SQLITE_SCHEMA_VERSION) {
    throw new Error(`database schema version ${String(current)} is newer than this Host understands (${SQLITE_SCHEMA_VERSION})`);
  }
  for (let version = current; version < SQLITE_SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
