// Reading a Form Package (package-index.json + definition.json) to enrich a catalog entry
// with what the Host API does not serve: role, immutable fields, lifecycle capabilities and
// the output schema. Every byte is verified first: each listed file's SHA-256 and size, and
// the Definition's RFC 8785 digest against the package's exact FormRef.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { jcsDigest, sha256Digest } from '../../common/digest.js';
import { parseIJson } from '../../common/ijson.js';
import type { FormRef, JsonObject } from '../../host-client/wire-types.js';
import { CatalogError } from './catalog-file.js';

export interface FormPackage {
  readonly formRef: FormRef;
  readonly packageDigest: string;
  readonly role?: string;
  readonly immutableFields: readonly string[];
  readonly lifecycleCapabilities: readonly string[];
  readonly outputSchema?: JsonObject;
  /** The Definition's `constraints` (orderedPair, sum, claim, exclusive, …), as written. */
  readonly constraints: readonly JsonObject[];
  readonly desiredSchema: JsonObject;
}

export function readFormPackage(dir: string): FormPackage {
  const fail = (msg: string): never => {
    throw new CatalogError(`Form package ${dir}: ${msg}`);
  };
  const readJson = (file: string): Record<string, unknown> => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      return fail(`cannot read ${path.basename(file)}: ${(e as Error).message}`);
    }
    const doc = parseIJson(bytes);
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc)
      ? (doc as Record<string, unknown>)
      : fail(`${path.basename(file)} is not a JSON object`);
  };
  const index = readJson(path.join(dir, 'package-index.json'));
  if (index.apiVersion !== 'packages.forms.takoform.com/v1alpha5' || index.kind !== 'FormPackage')
    fail('package-index.json is not a packages.forms.takoform.com/v1alpha5 FormPackage');
  const ref = index.formRef as FormRef;
  const files = Array.isArray(index.files) ? (index.files as { path: string; size: number; digest: string }[]) : fail('package-index.json lists no files');
  for (const f of files) {
    if (typeof f.path !== 'string' || f.path.includes('..') || path.isAbsolute(f.path)) fail(`unsafe file path ${JSON.stringify(f.path)}`);
    const bytes = readFileSync(path.join(dir, f.path));
    if (bytes.length !== f.size || sha256Digest(bytes) !== f.digest) fail(`${f.path} does not match its listed size and digest`);
  }
  const definitionPath = typeof index.definitionPath === 'string' ? index.definitionPath : 'definition.json';
  const definition = readJson(path.join(dir, definitionPath));
  if (jcsDigest(definition) !== ref.schemaDigest) fail(`the Definition's RFC 8785 digest is not ${ref.schemaDigest}`);
  if (definition.apiVersion !== ref.apiVersion || definition.kind !== ref.kind || definition.definitionVersion !== ref.definitionVersion)
    fail('the Definition names another Form than its package index');
  return {
    formRef: { apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest },
    packageDigest: jcsDigest(index),
    ...(typeof definition.role === 'string' ? { role: definition.role } : {}),
    immutableFields: Array.isArray(definition.immutableFields) ? (definition.immutableFields as string[]) : [],
    lifecycleCapabilities: Array.isArray(definition.lifecycleCapabilities) ? (definition.lifecycleCapabilities as string[]) : [],
    ...(typeof definition.outputSchema === 'object' && definition.outputSchema !== null ? { outputSchema: definition.outputSchema as JsonObject } : {}),
    constraints: Array.isArray(definition.constraints) ? (definition.constraints as JsonObject[]) : [],
    desiredSchema: definition.desiredSchema as JsonObject,
  };
}

/**
 * The package directories `dir` names: itself when it holds package-index.json, else its
 * immediate subdirectories that do (the same rule as the Host's --packages), so one folder of
 * packages serves both the Host and `catalog lock`.
 */
export function formPackageDirs(dir: string): string[] {
  const resolved = path.resolve(dir);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) throw new CatalogError(`--package ${dir}: not a directory`);
  if (existsSync(path.join(resolved, 'package-index.json'))) return [resolved];
  const children = readdirSync(resolved, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(resolved, e.name, 'package-index.json')))
    .map((e) => path.join(resolved, e.name))
    .sort();
  if (children.length === 0) throw new CatalogError(`--package ${dir}: holds no package-index.json, itself or in a subdirectory`);
  return children;
}

/** Every package under `dirs` (packages or folders of packages), each verified. */
export function readFormPackages(dirs: readonly string[]): FormPackage[] {
  return dirs.flatMap(formPackageDirs).map(readFormPackage);
}
