// The artifact manifest (`artifacts.takoform.com/v1alpha1`, wire reference §14.1): a closed
// document naming content-addressed blobs. WorkerBundle carries mainModule + modules and no
// files; StaticAssetBundle and MigrationBundle carry files and no modules. Every rule is checked
// at upload start and re-checked at commit; a violation is artifact_invalid.
import { isJsonObject, type JsonObject, type JsonValue } from '../../common/json-value.js';
import { HostError } from '../errors.js';
import { artifactPathProblem } from '../../common/grammar.js';
import { isDigest } from '../grammar.js';

export const ARTIFACT_API_VERSION = 'artifacts.takoform.com/v1alpha1';
const MAXIMUM_SIZE = 268_435_456;
const MODULE_MEDIA_TYPES = ['application/javascript+module', 'application/wasm', 'text/plain', 'application/octet-stream', 'application/source-map+json'];
const AUXILIARY_MODULE_MEDIA_TYPES = ['application/source-map+json'];
// The SQL of a MigrationBundle is application/sql: stated by the SQLiteMigrationSet Form's
// description, not by §14.1 (an interpretation, docs/reference-host.md). StaticAssetBundle files
// may be any type/subtype.
const MIGRATION_MEDIA_TYPES = ['application/sql'];
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

export interface ManifestEntry {
  readonly path: string;
  readonly mediaType: string;
  readonly size: number;
  readonly digest: string;
}

/** Checks a manifest and returns its entries (modules or files). */
export function readManifest(value: JsonValue | undefined): ManifestEntry[] {
  if (!isJsonObject(value)) throw invalid('the manifest must be a JSON object');
  const kind = value.kind;
  if (value.apiVersion !== ARTIFACT_API_VERSION) throw invalid(`manifest apiVersion must be "${ARTIFACT_API_VERSION}"`);
  if (kind === 'WorkerBundle') {
    closed(value, ['apiVersion', 'kind', 'mainModule', 'modules']);
    const modules = entries(value.modules, 'name', 4096, 'modules');
    for (const module of modules) {
      if (!MODULE_MEDIA_TYPES.includes(module.mediaType))
        throw invalid(`module ${module.path} has media type ${module.mediaType}, which a WorkerBundle cannot load`);
    }
    const main = modules.find((module) => module.path === value.mainModule);
    if (main === undefined || AUXILIARY_MODULE_MEDIA_TYPES.includes(main.mediaType)) {
      throw invalid('mainModule must name a loadable module of the bundle');
    }
    return modules;
  }
  if (kind === 'StaticAssetBundle' || kind === 'MigrationBundle') {
    closed(value, ['apiVersion', 'kind', 'files']);
    const files = entries(value.files, 'path', 16384, 'files');
    if (kind === 'MigrationBundle') {
      for (const file of files) {
        if (!MIGRATION_MEDIA_TYPES.includes(file.mediaType))
          throw invalid(`file ${file.path} has media type ${file.mediaType}; a MigrationBundle carries only ${MIGRATION_MEDIA_TYPES.join(', ')}`);
      }
    }
    return files;
  }
  throw invalid('manifest kind must be WorkerBundle, StaticAssetBundle or MigrationBundle');
}

function entries(value: JsonValue | undefined, nameMember: 'name' | 'path', maximum: number, member: string): ManifestEntry[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > maximum) throw invalid(`${member} must hold 1-${maximum} entries`);
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const at = `${member}[${index}]`;
    if (!isJsonObject(entry)) throw invalid(`${at} must be an object`);
    closed(entry, [nameMember, 'mediaType', 'size', 'digest'], at);
    const name = entry[nameMember];
    const { mediaType, size, digest } = entry;
    const problem = typeof name === 'string' ? artifactPathProblem(name) : 'it is not a string';
    if (typeof name !== 'string' || problem !== undefined) throw invalid(`${at}.${nameMember} is not an artifact path: ${problem}`);
    if (seen.has(name)) throw invalid(`${at}.${nameMember} "${name}" is listed twice`);
    seen.add(name);
    if (typeof mediaType !== 'string' || mediaType.length > 255 || !MEDIA_TYPE.test(mediaType)) throw invalid(`${at}.mediaType must be type/subtype`);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0 || size > MAXIMUM_SIZE) throw invalid(`${at}.size must be 0..${MAXIMUM_SIZE}`);
    if (typeof digest !== 'string' || !isDigest(digest)) throw invalid(`${at}.digest must be sha256:<hex>`);
    return { path: name, mediaType, size, digest };
  });
}

function closed(object: JsonObject, members: readonly string[], at = 'the manifest'): void {
  for (const member of Object.keys(object)) if (!members.includes(member)) throw invalid(`${at} has unknown member "${member}"`);
  for (const member of members) if (object[member] === undefined) throw invalid(`${at} is missing "${member}"`);
}

function invalid(message: string): HostError {
  return new HostError('artifact_invalid', message);
}
