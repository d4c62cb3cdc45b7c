// Vitest global set-up of the "postgres" test project (vitest.config.ts): one PostgreSQL server
// for the whole run, shared by every Host the HTTP suites start there (each Host gets a database
// of its own, see test/host/support/host-harness.ts). Stopped when the run ends.
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres:// URL of the maintenance database of the run's server. */
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('postgresAdminUrl', server.url('postgres'));
  return () => server.stop();
}
