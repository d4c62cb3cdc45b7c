// The Form Definition document (wire reference §7) as far as the Host acts on it. The raw
// document is kept too: its JCS digest is the schemaDigest, and the form-definition route serves
// its desiredSchema unchanged.
import { readDeclaredConstraint, type DeclaredConstraint } from './constraints.js';
import { BINDING_API_VERSION, INTERFACE_API_VERSION, readContractRef, type ContractRef } from './contract-ref.js';
import { isDefinitionVersion, isFormGroup, isFormKind } from './grammar.js';
import { pointerTokens } from '../common/json-pointer.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';

export const HOST_API_VERSION = 'forms.takoform.com/v1';

export const LIFECYCLE_CAPABILITIES = ['create', 'read', 'update', 'delete', 'import', 'observe'] as const;
export type LifecycleCapability = (typeof LIFECYCLE_CAPABILITIES)[number];

export const FORM_ROLES = ['identity', 'revision', 'deployment', 'attachment', 'policy'] as const;
export type FormRole = (typeof FORM_ROLES)[number];

export interface FormDefinition {
  readonly apiVersion: string;
  readonly kind: string;
  readonly definitionVersion: string;
  readonly title: string;
  readonly description: string | undefined;
  readonly role: FormRole;
  readonly desiredSchema: JsonObject;
  readonly outputSchema: JsonObject | undefined;
  /** JSON Pointers into the desired spec that an update may not change. */
  readonly immutableFields: readonly string[];
  readonly lifecycleCapabilities: readonly LifecycleCapability[];
  readonly constraints: readonly DeclaredConstraint[];
  /** Exact InterfaceRefs this Form provides (relation targets may require one). */
  readonly providedInterfaces: readonly ContractRef[];
  /** Exact BindingRefs resources of this Form may hold as binding source. */
  readonly acceptedBindings: readonly ContractRef[];
  /** The complete document as installed (digest input). */
  readonly document: JsonObject;
}

export class InvalidFormDefinitionError extends Error {
  override readonly name = 'InvalidFormDefinitionError';
}

/** Checks the members the Host relies on; throws InvalidFormDefinitionError or DeclaredConstraintError. */
export function readFormDefinition(document: JsonValue): FormDefinition {
  if (!isJsonObject(document)) throw new InvalidFormDefinitionError('a Form Definition must be a JSON object');
  const apiVersion = requireString(document, 'apiVersion', isFormGroup, 'a versionless Form group');
  const kind = requireString(document, 'kind', isFormKind, 'a Form kind');
  const definitionVersion = requireString(document, 'definitionVersion', isDefinitionVersion, 'a SemVer version without build metadata');
  const title = requireString(document, 'title', (value) => value.length >= 1 && value.length <= 160, '1-160 characters');
  requireString(document, 'requiresHostApi', (value) => value === HOST_API_VERSION, `"${HOST_API_VERSION}"`);
  const role = requireString(document, 'role', isFormRole, `one of ${FORM_ROLES.join(', ')}`) as FormRole;
  const description = document.description;
  if (description !== undefined && typeof description !== 'string') {
    throw new InvalidFormDefinitionError('/description must be a string');
  }
  return {
    apiVersion,
    kind,
    definitionVersion,
    title,
    description,
    role,
    desiredSchema: requireSchema(document, 'desiredSchema'),
    outputSchema: document.outputSchema === undefined ? undefined : requireSchema(document, 'outputSchema'),
    immutableFields: readImmutableFields(document.immutableFields),
    lifecycleCapabilities: readCapabilities(document.lifecycleCapabilities),
    constraints: readConstraints(document.constraints),
    providedInterfaces: readContractRefs(document.providedInterfaces, '/providedInterfaces', INTERFACE_API_VERSION),
    acceptedBindings: readContractRefs(document.acceptedBindings, '/acceptedBindings', BINDING_API_VERSION),
    document,
  };
}

function requireString(document: JsonObject, member: string, test: (value: string) => boolean, expected: string): string {
  const value = document[member];
  if (typeof value !== 'string' || !test(value)) {
    throw new InvalidFormDefinitionError(`/${member} must be ${expected}`);
  }
  return value;
}

function requireSchema(document: JsonObject, member: string): JsonObject {
  const schema = document[member];
  if (!isJsonObject(schema)) throw new InvalidFormDefinitionError(`/${member} must be a JSON Schema object`);
  return schema;
}

function readCapabilities(value: JsonValue | undefined): LifecycleCapability[] {
  if (!Array.isArray(value)) throw new InvalidFormDefinitionError('/lifecycleCapabilities must be an array');
  const capabilities: LifecycleCapability[] = [];
  for (const entry of value) {
    if (typeof entry !== 'string' || !isLifecycleCapability(entry) || capabilities.includes(entry)) {
      throw new InvalidFormDefinitionError(`/lifecycleCapabilities must hold distinct values from ${LIFECYCLE_CAPABILITIES.join(', ')}`);
    }
    capabilities.push(entry);
  }
  return capabilities;
}

function readImmutableFields(value: JsonValue | undefined): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string' && pointerTokens(entry) !== undefined)) {
    throw new InvalidFormDefinitionError('/immutableFields must be an array of JSON Pointers');
  }
  return value as string[];
}

function readConstraints(value: JsonValue | undefined): DeclaredConstraint[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidFormDefinitionError('/constraints must be an array');
  return value.map((entry, index) => readDeclaredConstraint(entry, `/constraints/${index}`));
}

function readContractRefs(value: JsonValue | undefined, pointer: string, apiVersion: string): ContractRef[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidFormDefinitionError(`${pointer} must be an array`);
  return value.map((entry, index) => {
    const ref = readContractRef(entry);
    if (ref === undefined || ref.apiVersion !== apiVersion) {
      throw new InvalidFormDefinitionError(`${pointer}/${index} must be an exact ${apiVersion} reference`);
    }
    return ref;
  });
}

export function isLifecycleCapability(value: string): value is LifecycleCapability {
  return (LIFECYCLE_CAPABILITIES as readonly string[]).includes(value);
}

function isFormRole(value: string): boolean {
  return (FORM_ROLES as readonly string[]).includes(value);
}
