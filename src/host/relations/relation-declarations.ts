// Relations a desiredSchema declares (wire reference §7.3, operations-v1.json relationResolution):
// any closed object schema requiring apiVersion, kind and name, with apiVersion and kind as
// `const`, is a reference. Its pointer, with * for array elements, names the relation. Each
// reference carries exactly one target contract: x-takoform-target-formrefs (exact FormRefs) or
// x-takoform-required-interface (an exact InterfaceRef). A reference inside an array annotated
// x-takoform-binding is a typed binding's `resource`. Found once per Definition, at install.
import { isJsonObject, type JsonObject, type JsonValue } from '../../common/json-value.js';
import { INTERFACE_API_VERSION, readContractRef, type ContractRef } from '../contract-ref.js';
import { readFormRef, type FormRef } from '../form-ref.js';
import { appendPointer } from '../../common/json-pointer.js';

const TARGET_FORMREFS = 'x-takoform-target-formrefs';
const REQUIRED_INTERFACE = 'x-takoform-required-interface';
const BINDING = 'x-takoform-binding';

export interface RelationDeclaration {
  /** Pointer pattern into the spec, e.g. /target or /members/*. */
  readonly relation: string;
  readonly group: string;
  readonly kind: string;
  readonly targetFormRefs: readonly FormRef[] | undefined;
  readonly requiredInterface: ContractRef | undefined;
  /** The binding name when the reference is the `resource` of a typed binding list item. */
  readonly bindingName: string | undefined;
}

export class RelationDeclarationError extends Error {
  override readonly name = 'RelationDeclarationError';
}

export function findRelationDeclarations(desiredSchema: JsonObject): RelationDeclaration[] {
  const found: RelationDeclaration[] = [];
  walk(desiredSchema, '', undefined, found);
  return found;
}

function walk(schema: JsonValue | undefined, pointer: string, bindingName: string | undefined, found: RelationDeclaration[]): void {
  if (!isJsonObject(schema)) return;
  const reference = readReference(schema, pointer, bindingName);
  if (reference !== undefined) {
    found.push(reference);
    return;
  }
  if (isJsonObject(schema.properties)) {
    for (const [member, memberSchema] of Object.entries(schema.properties)) {
      walk(memberSchema, appendPointer(pointer, member), bindingName, found);
    }
  }
  if (isJsonObject(schema.items)) {
    const binding = typeof schema[BINDING] === 'string' ? schema[BINDING] : undefined;
    if (binding !== undefined) {
      const resource = isJsonObject(schema.items.properties) ? schema.items.properties.resource : undefined;
      if (!isJsonObject(resource) || readReference(resource, `${pointer}/*/resource`, binding) === undefined) {
        throw new RelationDeclarationError(`${pointer}: a ${BINDING} list must hold {name, resource} items whose resource is a reference`);
      }
    }
    walk(schema.items, `${pointer}/*`, binding ?? bindingName, found);
  }
}

function readReference(schema: JsonObject, pointer: string, bindingName: string | undefined): RelationDeclaration | undefined {
  const properties = schema.properties;
  const required = schema.required;
  if (!isJsonObject(properties) || !Array.isArray(required)) return undefined;
  const apiVersion = isJsonObject(properties.apiVersion) ? properties.apiVersion.const : undefined;
  const kind = isJsonObject(properties.kind) ? properties.kind.const : undefined;
  const isReference =
    typeof apiVersion === 'string' &&
    typeof kind === 'string' &&
    isJsonObject(properties.name) &&
    ['apiVersion', 'kind', 'name'].every((member) => required.includes(member));
  if (!isReference) return undefined;
  const hasFormRefs = schema[TARGET_FORMREFS] !== undefined;
  const hasInterface = schema[REQUIRED_INTERFACE] !== undefined;
  if (hasFormRefs === hasInterface) {
    throw new RelationDeclarationError(`${pointer}: a reference must carry exactly one of ${TARGET_FORMREFS} and ${REQUIRED_INTERFACE}`);
  }
  let targetFormRefs: FormRef[] | undefined;
  let requiredInterface: ContractRef | undefined;
  if (hasFormRefs) {
    const refs = schema[TARGET_FORMREFS];
    if (!Array.isArray(refs) || refs.length === 0) throw new RelationDeclarationError(`${pointer}: ${TARGET_FORMREFS} must be a non-empty array`);
    targetFormRefs = refs.map((ref, index) => {
      try {
        return readFormRef(ref, `${pointer}/${TARGET_FORMREFS}/${index}`);
      } catch (error) {
        throw new RelationDeclarationError(`${pointer}: ${TARGET_FORMREFS}[${index}] is not an exact FormRef: ${(error as Error).message}`);
      }
    });
    if (targetFormRefs.some((ref) => ref.apiVersion !== apiVersion || ref.kind !== kind)) {
      throw new RelationDeclarationError(`${pointer}: ${TARGET_FORMREFS} must name the referenced group and kind`);
    }
  } else {
    requiredInterface = readContractRef(schema[REQUIRED_INTERFACE]);
    if (requiredInterface === undefined || requiredInterface.apiVersion !== INTERFACE_API_VERSION) {
      throw new RelationDeclarationError(`${pointer}: ${REQUIRED_INTERFACE} must be an exact ${INTERFACE_API_VERSION} reference`);
    }
  }
  return { relation: pointer, group: apiVersion, kind, targetFormRefs, requiredInterface, bindingName };
}
