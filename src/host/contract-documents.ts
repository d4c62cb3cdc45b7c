// Interface and Binding Definition documents (wire reference §17, §15 routes 20-21). They sit
// beside the Form packages (a --packages folder may hold them as top-level *.json files) and are
// identified by the JCS digest of the whole document, like Form Definitions. Where a frozen
// corpus lists them (see corpus-digests.ts), the computed digest must equal the listed one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { jcsDigest } from '../common/digest.js';
import { parseIJson } from '../common/ijson.js';
import { isJsonObject, type JsonValue } from '../common/json-value.js';
import { BINDING_API_VERSION, INTERFACE_API_VERSION, readContractRef, sameContractRef, type ContractRef } from './contract-ref.js';
import { FORM_ROLES, type FormRole } from './form-definition.js';
import { collectRefusal, FormPackageError } from './packages.js';

export interface InterfaceDefinition {
  readonly ref: ContractRef;
  readonly file: string;
}

export interface BindingDefinition {
  readonly ref: ContractRef;
  readonly file: string;
  readonly sourceRole: FormRole;
  readonly targetInterface: ContractRef;
  readonly allowedTargetForms: readonly { readonly apiVersion: string; readonly kind: string }[];
}

export class ContractCatalog {
  constructor(
    readonly interfaces: readonly InterfaceDefinition[],
    readonly bindings: readonly BindingDefinition[],
  ) {}

  interface(name: string, version: string): InterfaceDefinition | undefined {
    return this.interfaces.find((entry) => entry.ref.name === name && entry.ref.version === version);
  }

  binding(name: string, version: string): BindingDefinition | undefined {
    return this.bindings.find((entry) => entry.ref.name === name && entry.ref.version === version);
  }

  exactBinding(ref: ContractRef): BindingDefinition | undefined {
    return this.bindings.find((entry) => sameContractRef(entry.ref, ref));
  }
}

/** Every Interface/Binding document among the top-level *.json files of `directories`. */
export function loadContractDocuments(directories: readonly string[], refusals?: string[]): ContractCatalog {
  const interfaces: InterfaceDefinition[] = [];
  const bindings: BindingDefinition[] = [];
  for (const file of directories.flatMap(jsonFilesIn)) {
    // With `refusals`, a bad document is recorded there and skipped, so every refusal is seen.
    if (refusals !== undefined) collectRefusal(refusals, () => readContractDocument(file, interfaces, bindings));
    else readContractDocument(file, interfaces, bindings);
  }
  return new ContractCatalog(dedupe(interfaces), dedupe(bindings));
}

function readContractDocument(file: string, interfaces: InterfaceDefinition[], bindings: BindingDefinition[]): void {
  let document: JsonValue;
  try {
    document = parseIJson(readFileSync(file)) as JsonValue;
  } catch (error) {
    throw new FormPackageError(`${file}: ${(error as Error).message}`);
  }
  if (!isJsonObject(document)) return;
  const ref = { apiVersion: String(document.apiVersion), name: String(document.name), version: String(document.version), schemaDigest: jcsDigest(document) };
  if (document.apiVersion === INTERFACE_API_VERSION && document.kind === 'InterfaceDefinition') {
    refuseConflict(interfaces, ref, file);
    interfaces.push({ ref, file });
  } else if (document.apiVersion === BINDING_API_VERSION && document.kind === 'BindingDefinition') {
    const targetInterface = readContractRef(document.targetInterface);
    const sourceRole = document.sourceRole;
    const allowed = document.allowedTargetForms;
    if (targetInterface === undefined || typeof sourceRole !== 'string' || !(FORM_ROLES as readonly string[]).includes(sourceRole) || !Array.isArray(allowed)) {
      throw new FormPackageError(`${file}: a BindingDefinition needs targetInterface, sourceRole and allowedTargetForms`);
    }
    const allowedTargetForms = allowed.map((entry) => {
      if (!isJsonObject(entry) || typeof entry.apiVersion !== 'string' || typeof entry.kind !== 'string') {
        throw new FormPackageError(`${file}: allowedTargetForms entries must be {apiVersion, kind}`);
      }
      return { apiVersion: entry.apiVersion, kind: entry.kind };
    });
    refuseConflict(bindings, ref, file);
    bindings.push({ ref, file, sourceRole: sourceRole as FormRole, targetInterface, allowedTargetForms });
  }
}

/** One name and version cannot carry two digests: the support routes resolve by version alone. */
function refuseConflict(existing: readonly { ref: ContractRef; file: string }[], ref: ContractRef, file: string): void {
  const clash = existing.find((entry) => entry.ref.name === ref.name && entry.ref.version === ref.version);
  if (clash !== undefined && clash.ref.schemaDigest !== ref.schemaDigest) {
    throw new FormPackageError(`${file}: ${ref.name}@${ref.version} conflicts with ${clash.file} (different schemaDigest)`);
  }
}

function dedupe<T extends { ref: ContractRef }>(entries: T[]): T[] {
  return entries.filter((entry, index) => entries.findIndex((other) => sameContractRef(other.ref, entry.ref)) === index);
}

function jsonFilesIn(directory: string): string[] {
  const resolved = path.resolve(directory);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) return [];
  return readdirSync(resolved, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json') && entry.name !== 'package-index.json')
    .map((entry) => path.join(resolved, entry.name))
    .sort();
}
