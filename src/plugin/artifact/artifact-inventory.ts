// From the files to the manifest: each file is hashed as a stream (memory stays bounded
// whatever its size), checked against the manifest rules of §14.1 and the kind's media-type
// policy, and the manifest is built and digested exactly as the Host will (RFC 8785 / JCS).
// Every refusal names the file — its bundle path and its path on disk — and the rule.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { jcsDigest } from '../../common/digest.js';
import { artifactPathProblem } from '../../common/grammar.js';
import type { ArtifactManifest } from '../../host-client/index.js';
import type { Diagnostic } from '../diag/diagnostics.js';
import { refusal, type ArtifactConfig } from './artifact-config.js';
import { AUXILIARY_MODULE_TYPES, mediaTypeFor, mediaTypeProblem } from './media-types.js';
import { SourceError, sourceFiles, type SourceFile } from './source-files.js';

export const MAX_ENTRY_SIZE = 268_435_456;
const MAX_MODULES = 4096;
const MAX_FILES = 16384;

export interface InventoryEntry {
  readonly path: string;
  readonly diskPath: string;
  readonly mediaType: string;
  readonly size: number;
  readonly digest: string;
}

export interface Inventory {
  readonly manifest: ArtifactManifest;
  readonly manifestDigest: string;
  readonly entries: readonly InventoryEntry[];
}

export type InventoryResult = { readonly inventory: Inventory } | { readonly diagnostics: Diagnostic[] };

/** Why the manifest path grammar forbids a bundle path, or undefined. */
export function pathProblem(bundlePath: string): string | undefined {
  return artifactPathProblem(bundlePath);
}

export async function buildInventory(config: ArtifactConfig, cwd = process.cwd()): Promise<InventoryResult> {
  let files: SourceFile[];
  try {
    files = await sourceFiles(config, cwd);
  } catch (e) {
    if (e instanceof SourceError)
      return { diagnostics: [refusal('Artifact source unreadable', e.message, 'Point source_dir at an existing directory.', [e.attribute], 'none')] };
    throw e;
  }
  const kind = config.kind;
  const where = (f: SourceFile): (string | number)[] => (f.listIndex !== undefined ? ['files', f.listIndex] : ['source_dir']);
  const named = (f: SourceFile): string => `file "${f.bundlePath}" (on disk ${f.diskPath})`;
  const diagnostics: Diagnostic[] = [];
  const limit = kind === 'WorkerBundle' ? MAX_MODULES : MAX_FILES;
  if (files.length === 0) {
    diagnostics.push(
      refusal(
        'Artifact has no files',
        `no file ${config.sourceDir !== undefined ? `under ${config.sourceDir} matches include/exclude` : 'is listed'}; a manifest holds 1-${limit} entries (§14.1).`,
        'Add files, or widen include/exclude.',
        config.sourceDir !== undefined ? ['source_dir'] : ['files'],
      ),
    );
  }
  if (files.length > limit) {
    diagnostics.push(
      refusal(
        'Artifact has too many files',
        `${files.length} files; a ${kind} manifest holds at most ${limit} (rule: count, §14.1).`,
        'Split the content into several artifacts, or exclude files.',
        where(files[0]!),
      ),
    );
  }
  const seen = new Map<string, SourceFile>();
  const entries: InventoryEntry[] = [];
  for (const f of files) {
    const bad = pathProblem(f.bundlePath);
    if (bad) {
      diagnostics.push(
        refusal(
          'Artifact path forbidden',
          `${named(f)}: the manifest path grammar forbids this path: ${bad} (rule: path, §14.1).`,
          'Rename the file or give it another bundle path.',
          where(f),
        ),
      );
      continue;
    }
    const first = seen.get(f.bundlePath);
    if (first) {
      diagnostics.push(
        refusal(
          'Artifact path listed twice',
          `${named(f)} has the same bundle path as ${first.diskPath} (rule: unique paths, §14.1).`,
          'Give each file its own bundle path.',
          where(f),
        ),
      );
      continue;
    }
    seen.set(f.bundlePath, f);
    const mediaType = mediaTypeFor(kind, f.bundlePath, config.mediaTypes, f.mediaType);
    const policy = mediaTypeProblem(kind, mediaType);
    if (policy) {
      diagnostics.push(
        refusal(
          'Artifact media type refused',
          `${named(f)}: media type ${mediaType} is outside the ${kind} policy: ${policy} (rule: media type, §14.1).`,
          'Set a permitted media type in media_types (or files[*].media_type), or exclude the file.',
          where(f),
        ),
      );
      continue;
    }
    let size: number;
    try {
      size = statSync(f.diskPath).size;
    } catch (e) {
      diagnostics.push(
        refusal(
          'Artifact file unreadable',
          `${named(f)} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`,
          'Create the file or fix its source path.',
          where(f),
          'none',
        ),
      );
      continue;
    }
    if (size > MAX_ENTRY_SIZE) {
      diagnostics.push(
        refusal(
          'Artifact file too large',
          `${named(f)} is ${size} bytes; a manifest entry is at most ${MAX_ENTRY_SIZE} bytes (rule: size, §14.1).`,
          'Split the file, or keep it out of the artifact (exclude).',
          where(f),
        ),
      );
      continue;
    }
    entries.push({ path: f.bundlePath, diskPath: f.diskPath, mediaType, size, digest: '' });
  }
  if (kind === 'WorkerBundle' && config.mainModule !== undefined && diagnostics.length === 0) {
    const main = entries.find((e) => e.path === config.mainModule);
    if (!main) {
      diagnostics.push(
        refusal(
          'Artifact main module missing',
          `main_module "${config.mainModule}" is not a file of the bundle (files: ${entries
            .slice(0, 5)
            .map((e) => e.path)
            .join(', ')}${entries.length > 5 ? ', …' : ''}) (rule: main module, §14.1).`,
          'Set main_module to the bundle path of an included module.',
          ['main_module'],
        ),
      );
    } else if (AUXILIARY_MODULE_TYPES.includes(main.mediaType)) {
      diagnostics.push(
        refusal(
          'Artifact main module not loadable',
          `main_module "${main.path}" (on disk ${main.diskPath}) is ${main.mediaType}, an auxiliary module a worker cannot start from (rule: main module class).`,
          'Point main_module at a JavaScript or WebAssembly module.',
          ['main_module'],
        ),
      );
    }
  }
  if (diagnostics.length) return { diagnostics };
  const hashed: InventoryEntry[] = [];
  for (const e of entries) {
    const { digest, size } = await hashFile(e.diskPath);
    hashed.push({ ...e, digest, size });
  }
  const manifest = manifestOf(config, hashed);
  return { inventory: { manifest, manifestDigest: jcsDigest(manifest), entries: hashed } };
}

/** The manifest document, members in the order §14.1 shows them (JCS sorts them anyway). */
export function manifestOf(config: Pick<ArtifactConfig, 'kind' | 'mainModule'>, entries: readonly Omit<InventoryEntry, 'diskPath'>[]): ArtifactManifest {
  const base = { apiVersion: 'artifacts.takoform.com/v1alpha1' as const, kind: config.kind };
  if (config.kind === 'WorkerBundle') {
    return {
      ...base,
      mainModule: config.mainModule ?? '',
      modules: entries.map((e) => ({ name: e.path, mediaType: e.mediaType, size: e.size, digest: e.digest })),
    };
  }
  return { ...base, files: entries.map((e) => ({ path: e.path, mediaType: e.mediaType, size: e.size, digest: e.digest })) };
}

/**
 * sha256 and length of a file, read through one buffer reused for the whole file: memory stays
 * bounded whatever the size, and a large file does not leave a trail of chunks for the GC.
 * One buffer per call, because several resources are planned at once in one process.
 */
export async function hashFile(diskPath: string): Promise<{ digest: string; size: number }> {
  const hash = createHash('sha256');
  const file = await open(diskPath, 'r');
  const buffer = Buffer.allocUnsafe(256 * 1024);
  let size = 0;
  try {
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
  } finally {
    await file.close();
  }
  return { digest: `sha256:${hash.digest('hex')}`, size };
}
