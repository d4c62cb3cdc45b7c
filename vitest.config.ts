import { defineConfig } from 'vitest/config';

// The Host's HTTP suites that depend on its store run twice: on SQLite (with everything else) and
// on PostgreSQL (the "postgres" project, one server for the run; see test/support/postgres-global-setup.ts).
const STORE_DEPENDENT = [
  'test/host/conformance/**/*.test.ts',
  'test/host/routes/**/*.test.ts',
  'test/host/idempotency.test.ts',
  'test/host/server.test.ts',
];

export default defineConfig({
  test: {
    // End-to-end tests start real tofu processes and a real Host; give them room.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The e2e files each start their own Host and tofu; two cores, so keep it modest.
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: STORE_DEPENDENT,
          // TLS is transport only; it pins ':memory:' and has nothing to prove on PostgreSQL.
          exclude: ['test/host/conformance/tls.test.ts'],
          env: { TAKOFORM_TEST_STORE: 'postgres' },
          globalSetup: ['test/support/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
