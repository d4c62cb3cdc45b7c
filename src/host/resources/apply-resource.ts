// apply (wire reference §11.3): create under If-None-Match: *, or update under a generation
// fence, spending a prepareDigest that binds exactly this spec, address, tenant and incarnation.
// Runs inside the idempotent transaction; every refusal happens before the single write.
import type { Caller } from '../auth.js';
import type { InstalledForm } from '../catalog.js';
import { HostError, invalidArgument } from '../errors.js';
import { sameFormRef } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import { etagOfRevision, jsonResponse } from '../http/response.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { DesiredSpecCheck } from '../spec-validation.js';
import type { ResourceAddress, StoreTransaction, StoredResource } from '../store/store.js';
import { assertArtifactReference } from '../artifacts/artifact-reference.js';
import { admitSpec, assertStandardServices, requireCapability, resolveForm } from './admission.js';
import { resourceNotFound, type ResourcePath } from './exact-resource.js';
import { agreedGenerationFence, checkExpectedUid, checkGenerationFence, checkRevisionFence, requireGenerationFence } from './fences.js';
import { assertBindingSpendable, type BindingSubject } from './prepare-binding.js';
import type { ApplyRequest } from './resource-request.js';
import { renderResource } from './resource-representation.js';
import { checkWrite, commitWrite } from './resource-write.js';
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

export async function applyResource(host: HostContext, tx: StoreTransaction, input: ApplyInput): Promise<IdempotentOutcome> {
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
  // Before any fence or write: a bundle whose artifact this tenant has not committed changes nothing.
  await assertArtifactReference(tx, form, caller.tenant, admitted.spec);
  const current = await tx.findResource(address);
  return current === undefined ? create(host, tx, plan) : update(host, tx, plan, current);
}

async function create(host: HostContext, tx: StoreTransaction, plan: ApplyPlan): Promise<IdempotentOutcome> {
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
  await assertBindingSpendable(tx, request.prepareDigest, bindingSubject(plan, undefined));
  const writePlan = { form, admitted, address, current: undefined };
  const pins = await checkWrite(host, tx, writePlan);
  const { resource } = await commitWrite(host, tx, writePlan, pins);
  return { response: jsonResponse(201, renderResource(resource), etagOfRevision(resource.revision)), boundUid: resource.uid };
}

async function update(host: HostContext, tx: StoreTransaction, plan: ApplyPlan, current: StoredResource): Promise<IdempotentOutcome> {
  const { preconditions, request, form, admitted } = plan;
  if (preconditions.ifNoneMatchStar) {
    // Names are unique per group/kind across definition versions (wire reference §6.1).
    throw new HostError('generation_conflict', `a ${current.address.kind} named "${current.address.name}" already exists in this space`);
  }
  if (!sameFormRef(current.formRef, request.formRef)) throw resourceNotFound(current.address);
  const fence = requireGenerationFence(plan.generationFence, 'an update');
  checkExpectedUid(current, request.expectedUid);
  checkGenerationFence(current, fence);
  checkRevisionFence(current, preconditions.ifMatchRevision);
  assertUpdatePermitted(form, current, admitted.spec, admitted.specDigest);
  await assertBindingSpendable(tx, request.prepareDigest, bindingSubject(plan, current));
  const writePlan = { form, admitted, address: current.address, current };
  const pins = await checkWrite(host, tx, writePlan);
  const { resource } = await commitWrite(host, tx, writePlan, pins);
  return { response: jsonResponse(200, renderResource(resource), etagOfRevision(resource.revision)), boundUid: resource.uid };
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

/** For apply and import the body restates the path: group, kind and name must agree. */
export function assertBodyMatchesPath(request: { formRef: { apiVersion: string; kind: string }; name: string }, path: ResourcePath): void {
  if (request.formRef.apiVersion !== path.group) throw invalidArgument('/apiVersion must equal the group in the path', '/apiVersion');
  if (request.formRef.kind !== path.kind) throw invalidArgument('/kind must equal the kind in the path', '/kind');
  if (request.name !== path.name) throw invalidArgument('/metadata/name must equal the name in the path', '/metadata/name');
}
