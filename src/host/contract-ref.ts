// Exact references to Interface and Binding Definitions (`interfaces.takoform.com/v1alpha1`,
// `bindings.takoform.com/v1alpha2`): apiVersion, name, version and schemaDigest, all four compared.
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';
import { isDigest } from './grammar.js';

export const INTERFACE_API_VERSION = 'interfaces.takoform.com/v1alpha1';
export const BINDING_API_VERSION = 'bindings.takoform.com/v1alpha2';

export interface ContractRef {
  readonly apiVersion: string;
  readonly name: string;
  readonly version: string;
  readonly schemaDigest: string;
}

const MEMBERS = ['apiVersion', 'name', 'version', 'schemaDigest'];

/** A closed {apiVersion, name, version, schemaDigest} object, or undefined when `value` is not one. */
export function readContractRef(value: JsonValue | undefined): ContractRef | undefined {
  if (!isJsonObject(value)) return undefined;
  if (Object.keys(value).length !== MEMBERS.length || !MEMBERS.every((member) => typeof value[member] === 'string')) {
    return undefined;
  }
  const ref = {
    apiVersion: value.apiVersion as string,
    name: value.name as string,
    version: value.version as string,
    schemaDigest: value.schemaDigest as string,
  };
  return isDigest(ref.schemaDigest) && ref.name.length > 0 && ref.version.length > 0 ? ref : undefined;
}

export function sameContractRef(a: ContractRef, b: ContractRef): boolean {
  return a.apiVersion === b.apiVersion && a.name === b.name && a.version === b.version && a.schemaDigest === b.schemaDigest;
}

export function contractRefJson(ref: ContractRef): JsonObject {
  return { apiVersion: ref.apiVersion, name: ref.name, version: ref.version, schemaDigest: ref.schemaDigest };
}

export function describeContractRef(ref: ContractRef): string {
  return `${ref.name}@${ref.version} (${ref.schemaDigest})`;
}
