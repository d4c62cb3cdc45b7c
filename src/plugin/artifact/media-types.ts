// Media types of bundle files: inferred from the extension, or given by the configuration, and
// judged against the kind's policy (wire reference §14.1 and operations-v1.json
// `artifactReference`) so a refusal happens at plan, naming the file, instead of at commit.
import type { ArtifactKind } from '../../host-client/index.js';

/** What a WorkerBundle can load (`loadableModuleMediaTypes` + `auxiliaryModuleMediaTypes`). */
export const LOADABLE_MODULE_TYPES = ['application/javascript+module', 'text/plain', 'application/octet-stream', 'application/wasm'];
export const AUXILIARY_MODULE_TYPES = ['application/source-map+json'];
/** SQLiteMigrationSet's description: every MigrationBundle entry is application/sql. */
export const MIGRATION_TYPES = ['application/sql'];
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

const WORKER: Readonly<Record<string, string>> = {
  '.js': 'application/javascript+module',
  '.mjs': 'application/javascript+module',
  '.wasm': 'application/wasm',
  '.map': 'application/source-map+json',
  '.txt': 'text/plain',
  '.json': 'application/json',
};

const STATIC: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/vnd.microsoft.icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.pdf': 'application/pdf',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

/** The extension of a bundle path, lower-cased, with its dot ('' when none). */
export function extensionOf(bundlePath: string): string {
  const base = bundlePath.slice(bundlePath.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/** The media type a file gets: an override by path, then by extension, then the kind's table. */
export function mediaTypeFor(kind: ArtifactKind, bundlePath: string, overrides: ReadonlyMap<string, string>, explicit?: string): string {
  if (explicit !== undefined) return explicit;
  const ext = extensionOf(bundlePath);
  const override = overrides.get(bundlePath) ?? (ext ? overrides.get(ext) : undefined);
  if (override !== undefined) return override;
  if (kind === 'MigrationBundle') return ext === '.sql' ? 'application/sql' : 'application/octet-stream';
  return (kind === 'WorkerBundle' ? WORKER : STATIC)[ext] ?? 'application/octet-stream';
}

/** Why the kind's policy refuses this media type, or undefined when it is allowed. */
export function mediaTypeProblem(kind: ArtifactKind, mediaType: string): string | undefined {
  if (!MEDIA_TYPE.test(mediaType)) return `"${mediaType}" is not a type/subtype media type`;
  if (kind === 'WorkerBundle' && ![...LOADABLE_MODULE_TYPES, ...AUXILIARY_MODULE_TYPES].includes(mediaType))
    return `a WorkerBundle module must be one of ${[...LOADABLE_MODULE_TYPES, ...AUXILIARY_MODULE_TYPES].join(', ')}; ${mediaType} is not`;
  if (kind === 'MigrationBundle' && !MIGRATION_TYPES.includes(mediaType))
    return `a MigrationBundle file must be ${MIGRATION_TYPES.join(', ')}; ${mediaType} is not`;
  return undefined;
}
