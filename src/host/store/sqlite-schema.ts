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
];

export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

export function migrateSqliteSchema(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true });
  if (typeof current !== 'number' || current > SQLITE_SCHEMA_VERSION) {
    throw new Error(
      `database schema version ${String(current)} is newer than this Host understands (${SQLITE_SCHEMA_VERSION})`,
    );
  }
  for (let version = current; version < SQLITE_SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
