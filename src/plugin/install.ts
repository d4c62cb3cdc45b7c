// `terraform-provider-takoform install`: places the provider where a plain `tofu init` /
// `terraform init` finds it, in the unpacked filesystem-mirror layout
//   <mirror>/<hostname>/<namespace>/takoform/<version>/<os_arch>/terraform-provider-takoform_v<version>
// Two forms of that executable:
//  * the single executable with Node embedded (scripts/build-sea.mjs), when one was built for
//    this platform: it needs no `node` on the PATH of whoever runs tofu/terraform;
//  * otherwise a tiny shell wrapper that `exec`s node on the bundled provider beside it
//    (exec, so that core's SIGKILL reaches node and no orphan keeps its pipes open).
// Either way every file lives in the package directory, so the lock file's h1 hash covers the
// real code.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createServerCertificate } from './handshake/certificate.js';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from './handshake/handshake-line.js';
import { PROVIDER_HOSTNAME, PROVIDER_NAMESPACE, PROVIDER_TYPE } from './provider-address.js';
import { PROVIDER_VERSION } from './provider/provider.js';

export { PROVIDER_HOSTNAME, PROVIDER_NAMESPACE, PROVIDER_SOURCE, PROVIDER_TYPE } from './provider-address.js';
export const BUNDLE_FILE_NAME = 'provider.cjs';
export const MAIN_FILE_NAME = 'provider-main.cjs';
export const CACHE_FILE_NAME = 'provider-main.cache';

/**
 * The V8 code cache of the bundle, made by the Node that will run it (this one), so each of
 * the 3-5 launches per command skips most of compiling it. Written once, at install: the
 * package directory never changes afterwards, which keeps its lock-file hash valid.
 *
 * The cache is taken from a training run of the installed loader (see
 * scripts/provider-loader.cjs): a real start-up up to the handshake line, so the cache holds
 * every function start-up compiles. If that run fails, the cache of the freshly compiled
 * script is written instead (it covers the top level only).
 */
function writeCodeCache(dir: string): void {
  const cacheFile = path.join(dir, CACHE_FILE_NAME);
  rmSync(cacheFile, { force: true });
  try {
    trainCodeCache(dir);
  } catch {
    // the fallback below is always possible
  }
  if (!existsSync(cacheFile)) writeCompileCache(path.join(dir, MAIN_FILE_NAME), cacheFile);
}

function trainCodeCache(dir: string): void {
  const socketDir = mkdtempSync(path.join(tmpdir(), 'tf-takoform-install-'));
  try {
    // A client certificate as core would pass it, so that the TLS set-up is trained too.
    const clientCert = createServerCertificate().certPem;
    spawnSync(process.execPath, [path.join(dir, BUNDLE_FILE_NAME)], {
      cwd: dir, // no catalog here: the run needs no project
      env: {
        PATH: process.env.PATH ?? '',
        [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
        PLUGIN_PROTOCOL_VERSIONS: '6',
        PLUGIN_CLIENT_CERT: clientCert,
        PLUGIN_UNIX_SOCKET_DIR: socketDir,
        TAKOFORM_CODE_CACHE_TRAINING: '1',
      },
      stdio: 'ignore',
      timeout: 30_000,
    });
  } finally {
    rmSync(socketDir, { recursive: true, force: true });
  }
}

/** The wrapper text must match the loader's exactly, or V8 rejects the cache (harmlessly). */
function writeCompileCache(mainFile: string, cacheFile: string): void {
  const source = readFileSync(mainFile, 'utf8').replace(/^#!.*\n/, '');
  const wrapper = '(function (exports, require, module, __filename, __dirname) {' + source + '\n})';
  const script = new Script(wrapper, { filename: mainFile });
  writeFileSync(cacheFile, script.createCachedData());
}

export interface InstallOptions {
  /** Mirror root; defaults to ~/.terraform.d/plugins, an implied mirror of both CLIs. */
  readonly mirror?: string;
  /** The bundled provider file to install (the running one by default). */
  readonly bundle: string;
  /** A single executable (Node embedded) to install instead of the wrapper and bundle. */
  readonly executable?: string;
}

export const EXECUTABLE_NAME = `terraform-provider-${PROVIDER_TYPE}_v${PROVIDER_VERSION}`;

/**
 * The single executable built for this platform next to the bundle (dist/sea/<os_arch>/ in a
 * build, the same folder in a release), if there is one.
 */
export function builtExecutable(bundle: string): string | undefined {
  const candidate = path.join(path.dirname(bundle), '..', 'sea', platformDirName(), `terraform-provider-${PROVIDER_TYPE}`);
  return existsSync(candidate) ? candidate : undefined;
}

export function platformDirName(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'ia32' ? '386' : process.arch;
  return `${process.platform}_${arch}`;
}

export function installProvider(options: InstallOptions): string {
  const mirror = path.resolve(options.mirror ?? path.join(homedir(), '.terraform.d', 'plugins'));
  const dir = path.join(mirror, PROVIDER_HOSTNAME, PROVIDER_NAMESPACE, PROVIDER_TYPE, PROVIDER_VERSION, platformDirName());
  // A package directory holds one form only: a leftover of the other would change its hash.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (options.executable !== undefined) {
    const target = path.join(dir, EXECUTABLE_NAME);
    copyFileSync(options.executable, target);
    chmodSync(target, 0o755);
    return dir;
  }
  copyFileSync(options.bundle, path.join(dir, BUNDLE_FILE_NAME));
  const mainFile = path.join(path.dirname(options.bundle), MAIN_FILE_NAME);
  copyFileSync(mainFile, path.join(dir, MAIN_FILE_NAME));
  const wrapper = path.join(dir, EXECUTABLE_NAME);
  writeFileSync(wrapper, WRAPPER_TEXT);
  chmodSync(wrapper, 0o755);
  writeCodeCache(dir);
  return dir;
}

/** The wrapper: a shell script that runs the bundled provider with the node on PATH. */
export const WRAPPER_TEXT = `#!/bin/sh\n# terraform-provider-takoform ${PROVIDER_VERSION}: runs the bundled provider with the node on PATH.\nhere=$(dirname "$(readlink -f "$0")")\nexec node "$here/${BUNDLE_FILE_NAME}" "$@"\n`;
