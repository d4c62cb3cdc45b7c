// prepare (wire reference §11.2): admit the spec against the exact Definition, decide whether
// this is a create or an update of the incarnation holding the name, check the fence and the
// update rules, and mint the review binding the apply will spend. No resource is changed.
import type { Caller } from '../auth.js';
import { HostError } from '../errors.js';
import { formRefJson, sameFormRef } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import type { JsonObject } from '../../common/json-value.js';
import type { StoreTransaction, StoredResource } from '../store/store.js';
import { admitSpec, assertStandardServices, requireCapability, resolveForm } from './admission.js';
import { resourceNotFound } from './exact-resource.js';
import { checkGenerationFence, requireGenerationFence } from './fences.js';
import { mintBinding } from './prepare-binding.js';
import type { ResourceRequest } from './resource-request.js';
import { checkWrite } from './resource-write.js';
import { assertUpdatePermitted } from './update-rules.js';

export interface PrepareInput {
  readonly caller: Caller;
  readonly request: ResourceRequest;
  /** Takoform-Expected-Generation: sent iff the target exists. */
  readonly generationFence: string | undefined;
}

/** Returns the closed prepare answer `{resource, review}`. */
export async function prepareResource(host: HostContext, tx: StoreTransaction, input: PrepareInput): Promise<JsonObject> {
  const { caller, request, generationFence } = input;
  const form = resolveForm(host.catalog, request.formRef);
  const admitted = admitSpec(form, request.spec);
  assertStandardServices(form, admitted.spec, host.satisfiableStandardServices);
  const address = {
    tenant: caller.tenant,
    space: request.space,
    group: request.formRef.apiVersion,
    kind: request.formRef.kind,
    name: request.name,
  };
  const current = await tx.findResource(address);
  let target: StoredResource | undefined;
  if (current === undefined) {
    if (generationFence !== undefined) throw resourceNotFound(address);
    requireCapability(form, 'create');
  } else if (!sameFormRef(current.formRef, request.formRef)) {
    // Without a fence this prepares a create, which the held name would refuse at apply.
    if (generationFence !== undefined) throw resourceNotFound(address);
    throw new HostError(
      'generation_conflict',
      `a ${address.kind} named "${address.name}" already exists in this space under definitionVersion ` + `${current.formRef.definitionVersion}`,
    );
  } else {
    checkGenerationFence(current, requireGenerationFence(generationFence, 'prepare'));
    assertUpdatePermitted(form, current, admitted.spec, admitted.specDigest);
    target = current;
  }
  // Relations, contracts and every stateful constraint are judged now, and again at apply.
  await checkWrite(host, tx, { form, admitted, address, current: target });
  const prepareDigest = await mintBinding(tx, {
    tenant: caller.tenant,
    space: request.space,
    name: request.name,
    formRef: request.formRef,
    specDigest: admitted.specDigest,
    target,
  });
  return {
    // The request shape: no status, and only name and space in metadata.
    resource: {
      apiVersion: request.formRef.apiVersion,
      kind: request.formRef.kind,
      form: { formRef: formRefJson(request.formRef) },
      metadata: { name: request.name, space: request.space },
      spec: admitted.spec,
    },
    review: { prepareDigest, specDigest: admitted.specDigest },
  };
}
