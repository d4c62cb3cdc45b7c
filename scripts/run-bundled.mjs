// Runs a TypeScript entry point from the repository root: bundled into one ES module with
// esbuild (dependencies left to node_modules), then started with this Node, arguments passed
// through, its exit code ours. Used by `npm run soak` and `npm run bench:host`.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function runBundled(entry, outfile) {
  const out = path.join(root, outfile);
  await build({
    entryPoints: [path.join(root, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  const child = spawn(process.execPath, [out, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
