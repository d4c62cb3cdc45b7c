// The Form catalog snapshot: which exact FormRefs become which resource types. Core asks
// for the provider schema before configuring the provider and keeps it for the whole run,
// and `validate` must work offline, so resource types come from a file readable at process
// start (`.takoform.lock.json` in the root module, or the file named by TAKOFORM_CATALOG),
// written by `terraform-provider-takoform catalog lock`. Deterministic and sorted, so it
// reviews well in a pull request.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseIJson } from '../../common/ijson.js';
import { formAttributeClashes } from '../schema/form-mapping.js';
import type { FormRef, JsonObject } from '../../host-client/wire-types.js';

export const CATALOG_FILE_NAME = '.takoform.lock.json';
export const CATALOG_FORMAT_VERSION = 1;

export interface CatalogForm {
  /** Terraform resource type name, fixed once locked. */
  readonly typeName: string;
  readonly formRef: FormRef;
  readonly packageDigest?: string;
  readonly title: string;
  readonly description?: string;
  /** Lifecycle operations the Host serves for this exact Form (create, read, update, ...). */
  readonly operations: readonly string[];
  /** JSON Pointers of desired fields that cannot change in place (from the Form package). */
  readonly immutableFields: readonly string[];
  /** Form role (identity, revision, deployment, attachment, policy), from the Form package. */
  readonly role?: string;
  /** Schema of `status.outputs`, from the Form package; gives typed `outputs`. */
  readonly outputSchema?: JsonObject;
  /** The Form's constraints as written in its Definition (orderedPair, sum, claim, …), from a package: for the docs and offline checks. */
  readonly constraints?: readonly JsonObject[];
  /** Where role/immutableFields/outputSchema came from: a verified package, or nowhere. */
  readonly packageVerified?: boolean;
  readonly desiredSchema: JsonObject;
}

export interface Catalog {
  readonly formatVersion: number;
  readonly forms: readonly CatalogForm[];
  /**
   * Entries of the file that cannot be a typed resource type (attributeNameClashes), read but
   * served as no type. Only a file written before the lock left such Forms out holds them;
   * the diagnostics say how to keep their resources (catalog-hints.ts). Never written.
   */
  readonly withoutType?: readonly FormWithoutType[];
}

export interface FormWithoutType {
  readonly typeName: string;
  readonly formRef: FormRef;
  /** Why, as sentences (`the properties … both become the attribute …`). */
  readonly clashes: readonly string[];
}

export interface LoadedCatalog {
  readonly catalog: Catalog;
  /** Where it came from, for diagnostics and logs. */
  readonly source: string;
  /** The file looked for (absolute), found or not. */
  readonly file: string;
  /** False when there is no such file (an empty catalog then). */
  readonly found: boolean;
}

/** What to do with a Form whose properties clash (said by the lock, and by a catalog that has one). */
export const CLASH_REMEDY =
  'A resource type holds one attribute per name, so this Form has no typed resource type; manage its resources with takoform_resource, whose spec keeps the property names as they are.';

export class CatalogError extends Error {
  override readonly name = 'CatalogError';
}

/** Finds and reads the catalog; an absent file is an empty catalog (the provider still starts). */
export function loadCatalog(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): LoadedCatalog {
  const explicit = env.TAKOFORM_CATALOG;
  const file = explicit ? path.resolve(cwd, explicit) : path.join(cwd, CATALOG_FILE_NAME);
  if (!existsSync(file)) {
    if (explicit) throw new CatalogError(`TAKOFORM_CATALOG names ${file}, which does not exist`);
    return { catalog: { formatVersion: CATALOG_FORMAT_VERSION, forms: [] }, source: `none (no ${CATALOG_FILE_NAME} in ${cwd})`, file, found: false };
  }
  return { catalog: parseCatalog(readFileSync(file), file), source: file, file, found: true };
}

export function parseCatalog(bytes: Uint8Array | string, where: string): Catalog {
  let doc: unknown;
  try {
    doc = parseIJson(bytes);
  } catch (e) {
    throw new CatalogError(`${where}: not valid JSON: ${(e as Error).message}`);
  }
  const fail = (msg: string): never => {
    throw new CatalogError(`${where}: ${msg}`);
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('must be a JSON object');
  const o = doc as Record<string, unknown>;
  if (o.formatVersion !== CATALOG_FORMAT_VERSION) fail(`formatVersion must be ${CATALOG_FORMAT_VERSION}`);
  if (!Array.isArray(o.forms)) fail('forms must be an array');
  const seen = new Set<string>();
  const withoutType: FormWithoutType[] = [];
  const entries = (o.forms as unknown[]).map((entry, i): CatalogForm => {
    const e = entry as Record<string, unknown>;
    const ref = e.formRef as Record<string, unknown> | undefined;
    const str = (v: unknown, what: string) => (typeof v === 'string' && v ? v : fail(`forms[${i}].${what} must be a non-empty string`));
    const typeName = str(e.typeName, 'typeName');
    if (!/^takoform_[a-z0-9_]+$/.test(typeName)) fail(`forms[${i}].typeName ${typeName} must match takoform_[a-z0-9_]+`);
    if (seen.has(typeName)) fail(`resource type ${typeName} appears twice`);
    seen.add(typeName);
    if (typeof e.desiredSchema !== 'object' || e.desiredSchema === null) fail(`forms[${i}].desiredSchema must be an object`);
    const outputSchema = typeof e.outputSchema === 'object' && e.outputSchema !== null ? (e.outputSchema as JsonObject) : undefined;
    return {
      typeName,
      formRef: {
        apiVersion: str(ref?.apiVersion, 'formRef.apiVersion'),
        kind: str(ref?.kind, 'formRef.kind'),
        definitionVersion: str(ref?.definitionVersion, 'formRef.definitionVersion'),
        schemaDigest: str(ref?.schemaDigest, 'formRef.schemaDigest'),
      },
      ...(typeof e.packageDigest === 'string' ? { packageDigest: e.packageDigest } : {}),
      title: typeof e.title === 'string' ? e.title : typeName,
      ...(typeof e.description === 'string' ? { description: e.description } : {}),
      operations: Array.isArray(e.operations) ? (e.operations as string[]) : [],
      immutableFields: Array.isArray(e.immutableFields) ? (e.immutableFields as string[]) : [],
      ...(typeof e.role === 'string' ? { role: e.role } : {}),
      ...(outputSchema ? { outputSchema } : {}),
      ...(Array.isArray(e.constraints) && e.constraints.length > 0 ? { constraints: e.constraints as JsonObject[] } : {}),
      ...(e.packageVerified === true ? { packageVerified: true } : {}),
      desiredSchema: e.desiredSchema as JsonObject,
    };
  });
  const forms = entries.filter((form) => {
    const clashes = formAttributeClashes(form);
    if (clashes.length > 0) withoutType.push({ typeName: form.typeName, formRef: form.formRef, clashes });
    return clashes.length === 0;
  });
  return { formatVersion: CATALOG_FORMAT_VERSION, forms, ...(withoutType.length > 0 ? { withoutType } : {}) };
}

/** Deterministic text of a catalog: sorted forms, stable key order, trailing newline. */
export function formatCatalog(catalog: Catalog): string {
  const forms = [...catalog.forms].sort((a, b) => (a.typeName < b.typeName ? -1 : a.typeName > b.typeName ? 1 : 0));
  return JSON.stringify({ formatVersion: catalog.formatVersion, forms }, null, 2) + '\n';
}
