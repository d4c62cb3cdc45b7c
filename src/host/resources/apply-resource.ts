// apply (wire reference §11.3): create under If-None-Match: *, or update under a generation
// fence, spending a prepareDigest that binds exactly this spec, address, tenant and incarnation.
// Runs inside the idempotent transaction; every refusal happens before the single write.
import { jcsDigest } from '../../common/digest.js';
import type { Caller } from '../auth.js';
import type { InstalledForm } from '../catalog.js';
import { HostError, invalidArgument } from '../errors.js';
import { sameFormRef } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import { etagOfRevision, jsonResponse } from '../http/response.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { DesiredSpecCheck } from '../spec-validation.js';
import type { ResourceAddress, StoreTransaction, StoredResource } from '../store/store.js';
import { admitSpec, assertStandardServices, requireCapability, resolveForm } from './admission.js';
import { FIRST_COUNTER, nextCounter } from './counters.js';
import { resourceNotFound, type ResourcePath } from './exact-resource.js';
import {
  agreedGenerationFence,
  checkExpectedUid,
  checkGenerationFence,
  checkRevisionFence,
  requireGenerationFence,
} from './fences.js';
import { assertBindingSpendable, type BindingSubject } from './prepare-binding.js';
import type { ApplyRequest } from './resource-request.js';
import { readyStatus, renderResource } from './resource-representation.js';
import { assertUpdatePermitted } from './update-rules.js';

/** The precondition headers of an apply, already parsed. */
export interface ApplyPreconditions {
  readonly ifNoneMatchStar: boolean;
  readonly ifMatchRevision: string | undefined;
  readonly generationHeader: string | undefined;
}

export interface ApplyInput {
  readonly caller: Caller;
  readonly path: ResourcePath;
  readonly request: ApplyRequest;
  readonly preconditions: ApplyPreconditions;
}

interface ApplyPlan extends ApplyInput {
  readonly form: InstalledForm;
  readonly admitted: DesiredSpecCheck;
  readonly address: ResourceAddress;
  readonly generationFence: string | undefined;
}

export function applyResource(host: HostContext, tx: StoreTransaction, input: ApplyInput): IdempotentOutcome {
  const { request, path, preconditions, caller } = input;
  assertBodyMatchesPath(request, path);
  const form = resolveForm(host.catalog, request.formRef);
  const admitted = admitSpec(form, request.spec);
  if (request.reviewSpecDigest !== undefined && request.reviewSpecDigest !== admitted.specDigest) {
    throw invalidArgument('/review/specDigest does not match the digest of the materialized spec', '/review/specDigest', {
      specDigest: admitted.specDigest,
    });
  }
  assertStandardServices(form, admitted.spec, host.satisfiableStandardServices);
  const generationFence = agreedGenerationFence(preconditions.generationHeader, request.expectedGeneration);
  if (preconditions.ifNoneMatchStar && generationFence !== undefined) {
    throw invalidArgument('If-None-Match: * (create) cannot be combined with a generation fence (update)');
  }
  const address = { tenant: caller.tenant, space: request.space, group: path.group, kind: path.kind, name: path.name };
  const plan: ApplyPlan = { ...input, form, admitted, address, generationFence };
  const current = tx.findResource(address);
  return current === undefined ? create(host, tx, plan) : update(tx, plan, current);
}

function create(host: HostContext, tx: StoreTransaction, plan: ApplyPlan): IdempotentOutcome {
  const { preconditions, request, form, admitted, address } = plan;
  if (!preconditions.ifNoneMatchStar) {
    // A fenced update of a name nobody holds addresses no resource.
    if (plan.generationFence !== undefined) throw resourceNotFound(address);
    throw invalidArgument('creating a resource needs the If-None-Match: * header', undefined, { header: 'If-None-Match' });
  }
  if (preconditions.ifMatchRevision !== undefined) {
    throw invalidArgument('If-Match cannot fence a create', undefined, { header: 'If-Match' });
  }
  // Ambiguity A11: an expected incarnation on a create names one that does not exist.
  if (request.expectedUid !== undefined) {
    throw new HostError('uid_mismatch', 'expectedUid names an incarnation, but no resource holds this name', {
      details: { pointer: '/expectedUid' },
    });
  }
  requireCapability(form, 'create');
  assertBindingSpendable(tx, request.prepareDigest, bindingSubject(plan, undefined));
  const resource: StoredResource = {
    address,
    formRef: form.formRef,
    packageDigest: form.packageDigest,
    uid: host.mintUid(address),
    generation: FIRST_COUNTER,
    revision: FIRST_COUNTER,
    spec: admitted.spec,
    specDigest: admitted.specDigest,
    status: readyStatus(FIRST_COUNTER, host.now()),
  };
  tx.insertResource(resource);
  return { response: jsonResponse(201, renderResource(resource), etagOfRevision(resource.revision)), boundUid: resource.uid };
}

function update(tx: StoreTransaction, plan: ApplyPlan, current: StoredResource): IdempotentOutcome {
  const { preconditions, request, form, admitted } = plan;
  if (preconditions.ifNoneMatchStar) {
    // Names are unique per group/kind across definition versions (wire reference §6.1).
    throw new HostError(
      'generation_conflict',
      `a ${current.address.kind} named "${current.address.name}" already exists in this space`,
    );
  }
  if (!sameFormRef(current.formRef, request.formRef)) throw resourceNotFound(current.address);
  const fence = requireGenerationFence(plan.generationFence, 'an update');
  checkExpectedUid(current, request.expectedUid);
  checkGenerationFence(current, fence);
  checkRevisionFence(current, preconditions.ifMatchRevision);
  assertUpdatePermitted(form, current, admitted.spec, admitted.specDigest);
  assertBindingSpendable(tx, request.prepareDigest, bindingSubject(plan, current));
  const next = updatedResource(current, form, admitted);
  if (next !== current) tx.updateResource(next);
  return { response: jsonResponse(200, renderResource(next), etagOfRevision(next.revision)), boundUid: next.uid };
}

/**
 * Generation moves only when the materialized spec changes; revision moves whenever the rendered
 * representation changes (wire reference §8.3). An identical re-apply returns `current` itself.
 */
export function updatedResource(current: StoredResource, form: InstalledForm, admitted: DesiredSpecCheck): StoredResource {
  const specChanged = admitted.specDigest !== current.specDigest;
  const generation = specChanged ? nextCounter(current.generation) : current.generation;
  const candidate: StoredResource = {
    ...current,
    packageDigest: form.packageDigest,
    generation,
    spec: admitted.spec,
    specDigest: admitted.specDigest,
    status: specChanged ? { ...current.status, observedGeneration: generation } : current.status,
  };
  if (representationDigest(candidate) === representationDigest(current)) return current;
  return { ...candidate, revision: nextCounter(current.revision) };
}

function representationDigest(resource: StoredResource): string {
  return jcsDigest(renderResource({ ...resource, revision: FIRST_COUNTER }));
}

function bindingSubject(plan: ApplyPlan, target: StoredResource | undefined): BindingSubject {
  return {
    tenant: plan.caller.tenant,
    space: plan.request.space,
    name: plan.request.name,
    formRef: plan.request.formRef,
    specDigest: plan.admitted.specDigest,
    target,
  };
}

/** For apply the body restates the path: group, kind and name must agree. */
function assertBodyMatchesPath(request: ApplyRequest, path: ResourcePath): void {
  if (request.formRef.apiVersion !== path.group) throw invalidArgument('/apiVersion must equal the group in the path', '/apiVersion');
  if (request.formRef.kind !== path.kind) throw invalidArgument('/kind must equal the kind in the path', '/kind');
  if (request.name !== path.name) throw invalidArgument('/metadata/name must equal the name in the path', '/metadata/name');
}
