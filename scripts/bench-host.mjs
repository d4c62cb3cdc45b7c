#!/usr/bin/env node
// `npm run bench:host`: scripts/bench-host.ts (it shares the throwaway PostgreSQL server of
// test/support/postgres.ts), bundled and run from the repository root. Arguments are passed
// through, e.g. `npm run bench:host -- --seconds 10 --creates 600 --clients 16 --only fairness`.
import { runBundled } from './run-bundled.mjs';

await runBundled('scripts/bench-host.ts', 'dist/bench/bench-host.mjs');
