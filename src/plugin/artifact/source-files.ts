// The files a configuration names, as (bundle path, disk path) pairs: every regular file under
// source_dir that matches `include` and no `exclude` pattern (picomatch), in bundle-path order;
// or the explicit `files` list in its own order. Names starting with a dot (.git, .DS_Store,
// .env) are left out of a directory: the manifest schema forbids a path segment starting with
// a dot, so they could never be uploaded, and silently shipping an .env would be worse. Symbolic
// links to files are followed; links to directories are not descended (no cycles, and nothing
// outside the tree arrives unannounced).
import { lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ArtifactConfig } from './artifact-config.js';

export interface SourceFile {
  readonly bundlePath: string;
  readonly diskPath: string;
  /** The `files` index it came from (for the attribute path of a refusal). */
  readonly listIndex?: number;
  readonly mediaType?: string;
}

export class SourceError extends Error {
  constructor(
    message: string,
    readonly attribute: string,
  ) {
    super(message);
  }
}

export async function sourceFiles(config: ArtifactConfig, cwd = process.cwd()): Promise<SourceFile[]> {
  if (config.files !== undefined) {
    return config.files.map((f, i) => ({
      bundlePath: f.path,
      diskPath: path.resolve(cwd, f.source),
      listIndex: i,
      ...(f.mediaType !== undefined ? { mediaType: f.mediaType } : {}),
    }));
  }
  const root = path.resolve(cwd, config.sourceDir ?? '.');
  let rootStat;
  try {
    rootStat = statSync(root);
  } catch (e) {
    throw new SourceError(`source_dir ${root} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'source_dir');
  }
  if (!rootStat.isDirectory()) throw new SourceError(`source_dir ${root} is not a directory`, 'source_dir');
  const options = { dot: false };
  // Loaded here, not with the module: every provider launch evaluates this module, and only
  // an artifact with include/exclude patterns needs picomatch (~4 ms to load).
  const picomatch = config.include.length || config.exclude.length ? (await import('picomatch')).default : undefined;
  const included = picomatch && config.include.length ? picomatch([...config.include], options) : () => true;
  const excluded = picomatch && config.exclude.length ? picomatch([...config.exclude], options) : () => false;
  const out: SourceFile[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const disk = path.join(dir, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const isLink = entry.isSymbolicLink();
      const stat = isLink ? statSync(disk, { throwIfNoEntry: false }) : lstatSync(disk);
      if (stat === undefined) continue; // a dangling link names no file
      if (stat.isDirectory()) {
        if (!isLink) walk(disk, rel);
      } else if (stat.isFile() && included(rel) && !excluded(rel)) {
        out.push({ bundlePath: rel, diskPath: disk });
      }
    }
  };
  walk(root, '');
  return out.sort((a, b) => (a.bundlePath < b.bundlePath ? -1 : a.bundlePath > b.bundlePath ? 1 : 0));
}
