// Loads Form Packages from disk and verifies them before anything is installed (wire reference
// §6.3, §23.2 item 2): every listed file's raw size and SHA-256, the Definition's JCS digest
// against formRef.schemaDigest, the formRef identity against the Definition, and the package
// digest (JCS of package-index.json). Anything off refuses start-up with a message naming the file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { jcsDigest, sha256Digest } from '../common/digest.js';
import { parseIJson } from '../common/ijson.js';
import { describeFormRef, readFormRef, type FormRef } from './form-ref.js';
import { readFormDefinition, type FormDefinition } from './form-definition.js';
import { isDigest } from './grammar.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';

export const PACKAGE_INDEX_FILE = 'package-index.json';
export const PACKAGE_INDEX_API_VERSION = 'packages.forms.takoform.com/v1alpha5';
export const DEFINITION_MEDIA_TYPE = 'application/vnd.takoform.form-definition.v1+json';

// Package-relative paths: no absolute paths, no "." or ".." segments (package-index schema).
const PACKAGE_PATH = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
const DOT_SEGMENT = /(^|\/)\.\.?($|\/)/;

export interface LoadedFormPackage {
  readonly directory: string;
  readonly formRef: FormRef;
  readonly packageDigest: string;
  readonly definition: FormDefinition;
}

export class FormPackageError extends Error {
  override readonly name = 'FormPackageError';
}

/**
 * Loads every package under `directories`. Each directory is either a package itself (it holds
 * package-index.json) or a folder whose immediate subdirectories are packages; other files there
 * (Interface and Binding documents, for instance) are not packages and are left alone.
 * The same Definition installed twice is kept once; two Definitions sharing group, kind and
 * definitionVersion with different digests are refused, because the support route resolves by
 * version alone.
 */
export function loadFormPackages(directories: readonly string[], refusals?: string[]): LoadedFormPackage[] {
  // Every refusal is collected, not only the first: an operator fixing a folder of packages
  // should see all of them in one start-up.
  const refused = refusals ?? [];
  const byVersion = new Map<string, LoadedFormPackage>();
  const packageDirectories = directories.flatMap((directory) => collectRefusal(refused, () => packageDirectoriesIn(directory)) ?? []);
  for (const directory of packageDirectories) {
    const loaded = collectRefusal(refused, () => loadFormPackage(directory));
    if (loaded === undefined) continue;
    const versionKey = JSON.stringify([loaded.formRef.apiVersion, loaded.formRef.kind, loaded.formRef.definitionVersion]);
    const earlier = byVersion.get(versionKey);
    if (earlier === undefined) {
      byVersion.set(versionKey, loaded);
    } else if (earlier.formRef.schemaDigest !== loaded.formRef.schemaDigest) {
      refused.push(
        `${directory}: ${describeFormRef(loaded.formRef)} conflicts with ${describeFormRef(earlier.formRef)} ` +
          `from ${earlier.directory}: one group, kind and definitionVersion cannot carry two schema digests`,
      );
    }
  }
  if (refusals === undefined && refused.length > 0) throw new FormPackageRefusals(refused);
  return [...byVersion.values()];
}

/** Several refusals at once; the message lists each (with its path) on a line of its own. */
export class FormPackageRefusals extends FormPackageError {
  constructor(readonly refusals: readonly string[]) {
    super(refusals.length === 1 ? refusals[0]! : `${refusals.length} refusals:\n${refusals.map((r) => `  - ${r}`).join('\n')}`);
  }
}

/** Runs `load`; a FormPackageError becomes a refusal (undefined), anything else is a bug and thrown. */
export function collectRefusal<T>(refusals: string[], load: () => T): T | undefined {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof FormPackageError)) throw error;
    if (error instanceof FormPackageRefusals) refusals.push(...error.refusals);
    else refusals.push(error.message);
    return undefined;
  }
}

/** Loads and verifies the one package in `directory`. */
export function loadFormPackage(directory: string): LoadedFormPackage {
  const indexPath = path.join(directory, PACKAGE_INDEX_FILE);
  const index = readJsonFile(indexPath);
  const fail = (message: string): never => {
    throw new FormPackageError(`${indexPath}: ${message}`);
  };
  if (!isJsonObject(index)) return fail('a package index must be a JSON object');
  const unknown = Object.keys(index).find((member) => !['apiVersion', 'kind', 'formRef', 'definitionPath', 'files'].includes(member));
  if (unknown !== undefined) fail(`unknown member "${unknown}"`);
  if (index.apiVersion !== PACKAGE_INDEX_API_VERSION) fail(`apiVersion must be "${PACKAGE_INDEX_API_VERSION}"`);
  if (index.kind !== 'FormPackage') fail('kind must be "FormPackage"');
  const formRef = withPath(indexPath, () => readFormRef(index.formRef, '/formRef'));
  const definitionPath = index.definitionPath;
  if (typeof definitionPath !== 'string' || !isPackagePath(definitionPath)) {
    return fail('definitionPath must be a package-relative path');
  }
  const files = verifyListedFiles(directory, index.files, fail);
  if (files.get(definitionPath) !== DEFINITION_MEDIA_TYPE) {
    fail(`definitionPath "${definitionPath}" must be listed in files with mediaType "${DEFINITION_MEDIA_TYPE}"`);
  }

  const definitionFile = path.join(directory, definitionPath);
  const document = readJsonFile(definitionFile);
  const schemaDigest = jcsDigest(document);
  if (schemaDigest !== formRef.schemaDigest) {
    fail(`${definitionPath} has schemaDigest ${schemaDigest}, but formRef.schemaDigest is ${formRef.schemaDigest}`);
  }
  const definition = withPath(definitionFile, () => readFormDefinition(document));
  if (definition.apiVersion !== formRef.apiVersion || definition.kind !== formRef.kind || definition.definitionVersion !== formRef.definitionVersion) {
    fail(`formRef ${describeFormRef(formRef)} does not match the Definition's apiVersion, kind and definitionVersion`);
  }
  return { directory, formRef, packageDigest: jcsDigest(index), definition };
}

/** Checks each listed file's raw size and digest; returns path -> mediaType. */
function verifyListedFiles(directory: string, files: JsonValue | undefined, fail: (message: string) => never): Map<string, string> {
  if (!Array.isArray(files) || files.length === 0) return fail('files must be a non-empty array');
  const listed = new Map<string, string>();
  for (const [index, entry] of files.entries()) {
    const at = `files[${index}]`;
    if (!isJsonObject(entry)) return fail(`${at} must be an object`);
    const { path: filePath, mediaType, size, digest } = fileEntryMembers(entry, at, fail);
    if (listed.has(filePath)) fail(`${at}: "${filePath}" is listed twice`);
    const bytes = readPackageFile(path.join(directory, filePath), fail);
    if (bytes.length !== size) fail(`${filePath} is ${bytes.length} bytes, but the index says ${size}`);
    const actual = sha256Digest(bytes);
    if (actual !== digest) fail(`${filePath} has digest ${actual}, but the index says ${digest}`);
    listed.set(filePath, mediaType);
  }
  return listed;
}

function fileEntryMembers(entry: JsonObject, at: string, fail: (message: string) => never): { path: string; mediaType: string; size: number; digest: string } {
  const unknown = Object.keys(entry).find((member) => !['path', 'mediaType', 'size', 'digest'].includes(member));
  if (unknown !== undefined) fail(`${at} has unknown member "${unknown}"`);
  const { path: filePath, mediaType, size, digest } = entry;
  if (typeof filePath !== 'string' || !isPackagePath(filePath)) return fail(`${at}.path must be a package-relative path`);
  if (typeof mediaType !== 'string') return fail(`${at}.mediaType must be a string`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return fail(`${at}.size must be a byte count`);
  if (typeof digest !== 'string' || !isDigest(digest)) return fail(`${at}.digest must be sha256:<hex>`);
  return { path: filePath, mediaType, size, digest };
}

function packageDirectoriesIn(directory: string): string[] {
  const resolved = path.resolve(directory);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) {
    throw new FormPackageError(`${resolved}: not a directory`);
  }
  if (existsSync(path.join(resolved, PACKAGE_INDEX_FILE))) return [resolved];
  const children = readdirSync(resolved, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(resolved, entry.name, PACKAGE_INDEX_FILE)))
    .map((entry) => path.join(resolved, entry.name))
    .sort();
  if (children.length === 0) {
    throw new FormPackageError(`${resolved}: holds no ${PACKAGE_INDEX_FILE}, itself or in a subdirectory`);
  }
  return children;
}

function readPackageFile(file: string, fail: (message: string) => never): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    return fail(`cannot read listed file ${file}: ${(error as Error).message}`);
  }
}

/** Package documents obey the same strict I-JSON rules as requests. */
function readJsonFile(file: string): JsonValue {
  return withPath(file, () => parseIJson(readFileSync(file)) as JsonValue);
}

function withPath<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FormPackageError) throw error;
    throw new FormPackageError(`${file}: ${(error as Error).message}`, { cause: error });
  }
}

function isPackagePath(value: string): boolean {
  return value.length <= 240 && PACKAGE_PATH.test(value) && !DOT_SEGMENT.test(value);
}
