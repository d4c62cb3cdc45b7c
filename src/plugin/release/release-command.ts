// `terraform-provider-takoform release [--out DIR] [--platform OS_ARCH ...]`: see release.ts.
// Platforms: each one with a single executable built (dist/sea/<os_arch>/, or the running
// single executable itself), plus the wrapper for each other --platform named (default:
// the Unix platforms below). Windows is left out: the wrapper is a shell script.
import { flagValue, flagValues } from '../command-flags.js';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isSea } from 'node:sea';
import { BUNDLE_FILE_NAME, platformDirName } from '../install.js';
import { PROVIDER_TYPE } from '../provider-address.js';
import { writeRelease, type PlatformBuild } from './release.js';

export const WRAPPER_PLATFORMS = ['darwin_amd64', 'darwin_arm64', 'linux_amd64', 'linux_arm64'] as const;

export function release(args: readonly string[], out: (s: string) => void): number {
  const outDir = path.resolve(flagValue(args, '--out') ?? 'release');
  const named = flagValues(args, '--platform');
  const builds: PlatformBuild[] = [];
  if (isSea()) {
    builds.push({ platform: platformDirName(), executable: process.execPath });
  } else {
    const bundleDir = path.dirname(realpathSync(process.argv[1] ?? '')); // npm starts us through a link
    const seaRoot = path.join(bundleDir, '..', 'sea');
    const built = existsSync(seaRoot) ? readdirSync(seaRoot).filter((p) => existsSync(path.join(seaRoot, p, `terraform-provider-${PROVIDER_TYPE}`))) : [];
    for (const platform of built) {
      if (named.length === 0 || named.includes(platform))
        builds.push({ platform, executable: path.join(seaRoot, platform, `terraform-provider-${PROVIDER_TYPE}`) });
    }
    if (!existsSync(path.join(bundleDir, BUNDLE_FILE_NAME))) {
      process.stderr.write(`release: ${path.join(bundleDir, BUNDLE_FILE_NAME)} is missing\n`);
      return 1;
    }
    for (const platform of named.length > 0 ? named : WRAPPER_PLATFORMS) {
      if (!builds.some((b) => b.platform === platform)) builds.push({ platform, bundleDir });
    }
  }
  if (builds.length === 0) {
    process.stderr.write('release: no platform to package\n');
    return 1;
  }
  const r = writeRelease({ out: outDir, builds });
  for (const a of r.archives) out(`${a.platform}: ${a.file} (${a.form}) ${a.h1} ${a.zh}\n`);
  out(`wrote ${r.registryDir} (Registry release layout) and ${r.mirrorDir} (network mirror)\n`);
  return 0;
}
