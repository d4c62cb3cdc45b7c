// Bundles the benchmark's Node floor (scripts/bench-node-floor.ts) as scripts/build.mjs bundles
// the provider — one minified CommonJS file, `long` replaced by an empty stand-in — to the path
// given (the bench writes it into the floor's package). Usage: node scripts/build-node-floor.mjs OUT
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withoutLong } from './esbuild-without-long.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/build-node-floor.mjs OUT');
await build({
  entryPoints: [path.join(root, 'scripts/bench-node-floor.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [withoutLong],
});
