// Release artifacts, for each platform the provider is packaged for:
//   <out>/registry/  the Registry's provider release layout (what a private registry serves):
//       terraform-provider-takoform_<version>_<os>_<arch>.zip
//       terraform-provider-takoform_<version>_manifest.json   (protocol versions)
//       terraform-provider-takoform_<version>_SHA256SUMS      (zips and manifest)
//   <out>/mirror/    a provider network mirror tree (what `network_mirror { url = … }` reads):
//       <hostname>/<namespace>/<type>/index.json              {"versions": {"<version>": {}}}
//       <hostname>/<namespace>/<type>/<version>.json          archives with h1: and zh: hashes
//       <hostname>/<namespace>/<type>/<the same zips>
// A platform's zip holds the single executable (Node embedded) when one is built for it, else
// the wrapper with the bundle (needs node on the PATH there). Zips are deterministic (fixed
// times, sorted entries), and carry unix mode 0755 for the executable: without it an extracted
// provider is not executable ("permission denied" at the first plan).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { BUNDLE_FILE_NAME, EXECUTABLE_NAME, MAIN_FILE_NAME, WRAPPER_TEXT } from '../install.js';
import { PROVIDER_HOSTNAME, PROVIDER_NAMESPACE, PROVIDER_TYPE } from '../provider-address.js';
import { PROVIDER_VERSION } from '../provider/provider.js';
import { h1Hash, sha256Hex, zhHash, type PackageFile } from './hashes.js';

/** How one platform is packaged. */
export type PlatformBuild = { readonly platform: string; readonly executable: string } | { readonly platform: string; readonly bundleDir: string };

export interface ReleaseOptions {
  readonly out: string;
  readonly builds: readonly PlatformBuild[];
  readonly version?: string;
}

export interface ReleasedArchive {
  readonly platform: string;
  readonly file: string;
  readonly form: 'single executable' | 'wrapper';
  readonly h1: string;
  readonly zh: string;
}

export interface Release {
  readonly registryDir: string;
  readonly mirrorDir: string;
  readonly archives: readonly ReleasedArchive[];
}

/** The Registry's manifest: which plugin protocol versions the provider speaks. */
export const MANIFEST = { version: 1, metadata: { protocol_versions: ['6.0'] } } as const;

const EXECUTABLE_MODE = 0o100755;
const FILE_MODE = 0o100644;
// DOS times cannot be older than 1980; one fixed time keeps every zip byte-for-byte reproducible.
const ZIP_TIME = new Date(1980, 0, 1, 0, 0, 0);

function packageFiles(build: PlatformBuild): Array<PackageFile & { mode: number }> {
  if ('executable' in build) return [{ name: EXECUTABLE_NAME, data: readFileSync(build.executable), mode: EXECUTABLE_MODE }];
  // No V8 code cache here: it is only valid for the Node that made it (install writes one).
  return [
    { name: EXECUTABLE_NAME, data: Buffer.from(WRAPPER_TEXT), mode: EXECUTABLE_MODE },
    { name: BUNDLE_FILE_NAME, data: readFileSync(path.join(build.bundleDir, BUNDLE_FILE_NAME)), mode: FILE_MODE },
    { name: MAIN_FILE_NAME, data: readFileSync(path.join(build.bundleDir, MAIN_FILE_NAME)), mode: FILE_MODE },
  ];
}

export function writeRelease(options: ReleaseOptions): Release {
  const version = options.version ?? PROVIDER_VERSION;
  const base = `terraform-provider-${PROVIDER_TYPE}_${version}`;
  const registryDir = path.join(options.out, 'registry');
  const mirrorRoot = path.join(options.out, 'mirror');
  const mirrorDir = path.join(mirrorRoot, PROVIDER_HOSTNAME, PROVIDER_NAMESPACE, PROVIDER_TYPE);
  rmSync(registryDir, { recursive: true, force: true });
  rmSync(mirrorRoot, { recursive: true, force: true });
  mkdirSync(registryDir, { recursive: true });
  mkdirSync(mirrorDir, { recursive: true });

  const archives: ReleasedArchive[] = [];
  const sums: Array<[string, string]> = [];
  for (const build of [...options.builds].sort((a, b) => a.platform.localeCompare(b.platform))) {
    const files = packageFiles(build);
    const entries: Zippable = {};
    for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
      entries[f.name] = [f.data, { os: 3, attrs: (f.mode << 16) >>> 0, mtime: ZIP_TIME }];
    }
    const zip = zipSync(entries, { level: 6 });
    const file = `${base}_${build.platform}.zip`;
    writeFileSync(path.join(registryDir, file), zip);
    writeFileSync(path.join(mirrorDir, file), zip);
    sums.push([sha256Hex(zip), file]);
    archives.push({ platform: build.platform, file, form: 'executable' in build ? 'single executable' : 'wrapper', h1: h1Hash(files), zh: zhHash(zip) });
  }

  const manifestFile = `${base}_manifest.json`;
  const manifest = Buffer.from(JSON.stringify(MANIFEST, null, 2) + '\n');
  writeFileSync(path.join(registryDir, manifestFile), manifest);
  sums.push([sha256Hex(manifest), manifestFile]);
  sums.sort((a, b) => (a[1] < b[1] ? -1 : 1));
  writeFileSync(path.join(registryDir, `${base}_SHA256SUMS`), sums.map(([h, f]) => `${h}  ${f}\n`).join(''));

  // Network mirror protocol: the archive URLs are relative to the <version>.json that names them.
  writeFileSync(path.join(mirrorDir, 'index.json'), JSON.stringify({ versions: { [version]: {} } }, null, 2) + '\n');
  const versionDoc = { archives: Object.fromEntries(archives.map((a) => [a.platform, { url: a.file, hashes: [a.h1, a.zh] }])) };
  writeFileSync(path.join(mirrorDir, `${version}.json`), JSON.stringify(versionDoc, null, 2) + '\n');
  return { registryDir, mirrorDir: mirrorRoot, archives };
}
