// Chooses the store from the --db value: a postgres:// or postgresql:// URL opens PostgreSQL (for
// several Host processes on one database); anything else is a SQLite file path (or ':memory:'),
// the embedded default that needs no server.
import { PostgresHostStore, isPostgresUrl } from './postgres-store.js';
import { SqliteHostStore } from './sqlite-store.js';
import type { HostStore } from './store.js';

export function openStore(db: string, log: (line: string) => void): Promise<HostStore> {
  if (isPostgresUrl(db)) return PostgresHostStore.open(db, { log });
  return Promise.resolve(SqliteHostStore.open(db));
}
