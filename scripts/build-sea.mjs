// Builds the provider as a single executable with Node embedded (Node's single-executable
// applications), for the platform this Node runs on:
//   dist/sea/<os>_<arch>/terraform-provider-takoform
// so that tofu/terraform can start it on a machine without Node. Run after scripts/build.mjs
// (`npm run build` does both). The blob is made by this Node (`--experimental-sea-config`)
// and injected with postject into a copy of this same Node binary, which carries the fuse.
//
// The code cache: the entry is a small loader (scripts/provider-sea-loader.cjs) that runs the
// bundle, an asset, with the V8 code cache `install` trains for the wrapper (also an asset), so
// each launch skips compiling the bundle, including what runs after the handshake. Node's own
// `useCodeCache` held only the functions V8 compiles eagerly (see docs/performance.md). The
// start-up snapshot (useSnapshot) is not used: on Node 20 `http2`, which serving needs, cannot
// be loaded in the snapshot builder (docs/design.md).
//
// Platforms other than the one building keep the wrapper: a SEA must be made from a node
// binary of the target platform, and none can be downloaded here.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAscii } from 'node:buffer';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'ia32' ? '386' : process.arch;
const platform = `${process.platform}_${arch}`;
const main = path.join(root, 'dist/provider/provider-main.cjs');
// --out FILE and --no-code-cache are for `npm run bench`, which compares both variants.
const outArg = process.argv.indexOf('--out');
const target = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist/sea', platform, 'terraform-provider-takoform');
const outDir = path.dirname(target);
const work = path.join(root, 'dist/sea', `.work-${process.pid}`);

if (process.platform === 'win32') {
  console.error('build-sea: not built on Windows by this script (the executable would need an .exe name and signing)');
  process.exit(0);
}
if (!existsSync(main)) throw new Error(`${main} is missing: run scripts/build.mjs first`);
if (!readFileSync(process.execPath).includes(FUSE)) {
  throw new Error(`${process.execPath} has no single-executable fuse (${FUSE}); use an official Node build`);
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(outDir, { recursive: true });
const blob = path.join(work, 'provider.blob');
const config = path.join(work, 'sea-config.json');
const useCodeCache = !process.argv.includes('--no-code-cache');
// The entry is a small loader (scripts/provider-sea-loader.cjs); the bundle and its trained V8
// code cache are assets. The cache is the one `install --wrapper` writes: trained by this Node,
// which is the Node the executable embeds, so V8 accepts it there.
if (!isAscii(readFileSync(main))) throw new Error(`${main} is not ASCII; the single-executable loader reads it as latin1`);
const assets = { 'provider-main.cjs': main };
if (useCodeCache) {
  const trained = path.join(work, 'trained');
  run(process.execPath, [path.join(root, 'dist/provider/provider.cjs'), 'install', '--wrapper', '--mirror', trained]);
  const cache = readdirSync(trained, { recursive: true }).find((f) => path.basename(String(f)) === 'provider-main.cache');
  if (cache === undefined) throw new Error('build-sea: the code-cache training wrote no cache');
  assets['provider-main.cache'] = path.join(trained, String(cache));
}
const loader = path.join(root, 'scripts/provider-sea-loader.cjs');
writeFileSync(config, JSON.stringify({ main: loader, output: blob, disableExperimentalSEAWarning: true, assets }));
run(process.execPath, ['--experimental-sea-config', config]);

const tmp = path.join(work, 'terraform-provider-takoform');
copyFileSync(process.execPath, tmp);
chmodSync(tmp, 0o755);
// Symbols and debug sections off (Linux, where binutils' strip is there): core hashes the whole
// package directory against the lock file on every command (sha256, ~1.2 ms of its CPU per MB,
// before the first launch), and Node's own binary carries ~13 MB that running never reads.
// The dynamic symbol table stays (strip keeps it), so nothing that runs changes.
if (process.platform === 'linux' && spawnSync('strip', ['--version']).status === 0) run('strip', ['--strip-all', tmp]);
// postject's CLI is the documented way to inject; run it with this Node so no PATH is needed.
const postject = path.join(path.dirname(createRequire(import.meta.url).resolve('postject/package.json')), 'dist/cli.js');
run(process.execPath, [
  postject,
  tmp,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  FUSE,
  ...(process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : []),
]);
rmSync(target, { force: true });
copyFileSync(tmp, target);
chmodSync(target, 0o755);
rmSync(work, { recursive: true, force: true });

// A smoke check: the executable must answer by itself (no node on PATH needed).
const version = execFileSync(target, ['version'], { env: { PATH: '/nonexistent' } })
  .toString()
  .trim();
// The trained cache must be one V8 takes in the executable (else every launch compiles the bundle).
const cacheCheck = spawnSync(target, ['version'], { env: { PATH: '/nonexistent', TAKOFORM_SEA_CACHE_CHECK: '1' }, encoding: 'utf8' });
if (useCodeCache && !/code cache accepted/.test(cacheCheck.stderr))
  throw new Error(`build-sea: the executable does not use its code cache: ${cacheCheck.stderr.trim()}`);
console.error(`build-sea: wrote ${path.relative(root, target)} (provider ${version}, Node ${process.version}, code cache ${useCodeCache ? 'on' : 'off'})`);

/** Runs a step quietly (postject warns about ELF note names it cannot map, harmlessly); its output is shown only when it fails. */
function run(command, args) {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build-sea: ${path.basename(args[0] ?? command)} failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
}
