// Bundles the two executables with esbuild:
//   dist/provider/provider-main.cjs  the provider plugin: one self-contained file, so its package
//                                  directory hashes deterministically and starts fast (nothing
//                                  but what serving needs is evaluated at start; see main.ts)
//   dist/provider/provider.cjs     its loader (uses a V8 code cache when present)
//   dist/host/takoform-host.cjs    the reference Host (better-sqlite3 stays external: native; so
//                                  does pg-native, pg's optional native binding, never installed)
// Run after scripts/gen-proto.mjs (`npm run build` does both, plus the type check).
import { build } from 'esbuild';
import { chmodSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withoutLong } from './esbuild-without-long.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', legalComments: 'none' };

await build({
  ...common,
  entryPoints: [path.join(root, 'src/plugin/bin.ts')],
  outfile: path.join(root, 'dist/provider/provider-main.cjs'),
  minify: true,
  plugins: [withoutLong],
});
// provider.cjs is the small loader that runs provider-main.cjs with a V8 code cache when one
// is present (install writes it); see scripts/provider-loader.cjs.
copyFileSync(path.join(root, 'scripts/provider-loader.cjs'), path.join(root, 'dist/provider/provider.cjs'));
chmodSync(path.join(root, 'dist/provider/provider.cjs'), 0o755);

await build({
  ...common,
  entryPoints: [path.join(root, 'src/host/bin.ts')],
  outfile: path.join(root, 'dist/host/takoform-host.cjs'),
  external: ['better-sqlite3', 'pg-native'],
  banner: { js: '#!/usr/bin/env node' },
});
chmodSync(path.join(root, 'dist/host/takoform-host.cjs'), 0o755);
console.error('build: wrote dist/provider/provider.cjs and dist/host/takoform-host.cjs');
