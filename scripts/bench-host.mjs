#!/usr/bin/env node
// `npm run bench:host`: bundles scripts/bench-host.ts (it shares the throwaway PostgreSQL server
// of test/support/postgres.ts) into one ES module with esbuild, dependencies left to
// node_modules, and runs it from the repository root. Arguments are passed through, e.g.
// `npm run bench:host -- --seconds 10 --creates 600 --clients 16 --only fairness`.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/bench/bench-host.mjs');
await build({
  entryPoints: [path.join(root, 'scripts/bench-host.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const child = spawn(process.execPath, [outfile, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
