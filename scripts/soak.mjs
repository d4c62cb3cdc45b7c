#!/usr/bin/env node
// `npm run soak`: bundles the reliability scenarios (TypeScript under test/reliability) into
// one ES module with esbuild, dependencies left to node_modules, and runs it from the
// repository root (the scenarios find dist/, .tools/ and ../shared relative to it).
// Arguments are passed through, e.g. `npm run soak -- --seed 42 --cycles 200 --kills 50`.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/soak/soak-main.mjs');
await build({
  entryPoints: [path.join(root, 'test/reliability/soak-main.ts')],
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
