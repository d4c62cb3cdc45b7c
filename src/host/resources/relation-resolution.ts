// Resolving the relations of a desired spec (wire reference §17 items 1-5): every reference is
// looked up in the source's own tenant and space, its target contract checked (exact FormRef or
// required Interface), typed bindings checked against the exact Binding Definition, and the result
// pinned by target uid and exact FormRef. Runs on prepare, apply and import (and at an async
// commit), always inside the transaction that will write the pins.
import { isJsonObject, type JsonObject } from '../../common/json-value.js';
import type { InstalledForm } from '../catalog.js';
import { describeContractRef, sameContractRef, type ContractRef } from '../contract-ref.js';
import { HostError, invalidArgument } from '../errors.js';
import { describeFormRef, sameFormRef } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import { expandPointerPattern } from '../../common/json-pointer.js';
import type { RelationDeclaration } from '../relations/relation-declarations.js';
import type { RelationPin, ResourceAddress, StoreTransaction, StoredResource } from '../store/store.js';
import { SPEC_POINTER } from './admission.js';

export interface RelationSource {
  readonly form: InstalledForm;
  readonly spec: JsonObject;
  readonly tenant: string;
  readonly space: string;
}

export async function resolveRelations(host: HostContext, tx: StoreTransaction, source: RelationSource): Promise<RelationPin[]> {
  const pins: RelationPin[] = [];
  for (const declaration of source.form.relations) {
    for (const { pointer, value } of expandPointerPattern(source.spec, declaration.relation)) {
      if (!isJsonObject(value) || typeof value.name !== 'string') continue;
      const target: ResourceAddress = {
        tenant: source.tenant,
        space: source.space,
        group: declaration.group,
        kind: declaration.kind,
        name: value.name,
      };
      const found = await tx.findResource(target);
      const at = SPEC_POINTER + pointer;
      if (found === undefined) {
        // "Only another tenant has it" reads exactly like "nobody has it".
        throw new HostError('resource_not_found', `relation ${at}: no ${target.kind} named "${target.name}" exists in this space`, {
          details: { pointer: at },
        });
      }
      checkTargetContract(host, declaration, found, at);
      const bindingRef = declaration.bindingName === undefined ? undefined : checkBinding(host, source.form, declaration, found, at);
      pins.push({ pointer, relation: declaration.relation, target, targetUid: found.uid, targetFormRef: found.formRef, bindingRef });
    }
  }
  return pins;
}

function checkTargetContract(host: HostContext, declaration: RelationDeclaration, target: StoredResource, at: string): void {
  if (declaration.targetFormRefs !== undefined) {
    if (!declaration.targetFormRefs.some((ref) => sameFormRef(ref, target.formRef))) {
      throw invalidArgument(
        `relation ${at}: ${target.address.kind} "${target.address.name}" is recorded under ${describeFormRef(target.formRef)}, ` +
          'which is not one of the exact FormRefs this relation accepts',
        at,
      );
    }
  }
  if (declaration.requiredInterface !== undefined && !provides(host, target, declaration.requiredInterface)) {
    throw invalidArgument(
      `relation ${at}: ${target.address.kind} "${target.address.name}" does not provide the required Interface ` +
        describeContractRef(declaration.requiredInterface),
      at,
    );
  }
}

/** Typed bindings, in the order of wire reference §17 item 4. Returns "name@version". */
function checkBinding(host: HostContext, form: InstalledForm, declaration: RelationDeclaration, target: StoredResource, at: string): string {
  const name = declaration.bindingName ?? '';
  const accepted = form.definition.acceptedBindings.find((ref) => ref.name === name);
  if (accepted === undefined) throw invalidArgument(`binding ${at}: ${form.formRef.kind} does not accept the Binding "${name}"`, at);
  const binding = host.contracts.exactBinding(accepted);
  if (binding === undefined) {
    throw new HostError('unsupported_capability', `binding ${at}: this Host has no Binding Definition ${describeContractRef(accepted)}`, {
      details: { pointer: at },
    });
  }
  if (binding.sourceRole !== form.definition.role) {
    throw invalidArgument(`binding ${at}: Binding ${name} needs a ${binding.sourceRole} source, ${form.formRef.kind} is ${form.definition.role}`, at);
  }
  if (!binding.allowedTargetForms.some((allowed) => allowed.apiVersion === target.formRef.apiVersion && allowed.kind === target.formRef.kind)) {
    throw invalidArgument(`binding ${at}: Binding ${name} does not allow ${target.formRef.apiVersion}/${target.formRef.kind} targets`, at);
  }
  if (!provides(host, target, binding.targetInterface)) {
    throw invalidArgument(`binding ${at}: the target does not provide ${describeContractRef(binding.targetInterface)}`, at);
  }
  if (declaration.requiredInterface !== undefined && !sameContractRef(declaration.requiredInterface, binding.targetInterface)) {
    throw invalidArgument(`binding ${at}: the reference's required Interface disagrees with Binding ${name}'s targetInterface`, at);
  }
  return `${binding.ref.name}@${binding.ref.version}`;
}

function provides(host: HostContext, target: StoredResource, ref: ContractRef): boolean {
  const definition = host.catalog.exact(target.formRef)?.definition;
  return definition !== undefined && definition.providedInterfaces.some((provided) => sameContractRef(provided, ref));
}
