// import (wire reference §12.3, operations-v1.json `adoption`): adopts the Host-native object
// named by nativeId, with the same admission as apply (defaults, schema, relations, constraints)
// but no prepare/review. A new adoption (If-None-Match: *) mints an incarnation (201); an import
// addressing an existing resource is generation-fenced and adopts it in place (200). The nativeId
// claim is held per tenant across every space and kind: a second live holder, or re-importing a
// resource under another nativeId, is import_conflict. Deleting the holder releases the claim.
import type { Caller } from '../auth.js';
import { HostError, invalidArgument } from '../errors.js';
import { sameFormRef } from '../form-ref.js';
import { GENERATION_FENCE_HEADER } from '../http/preconditions.js';
import type { HostContext } from '../host-context.js';
import { etagOfRevision, jsonResponse } from '../http/response.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { StoreTransaction } from '../store/store.js';
import { assertArtifactReference } from '../artifacts/artifact-reference.js';
import { admitSpec, assertStandardServices, requireCapability, resolveForm } from './admission.js';
import { assertBodyMatchesPath, type ApplyPreconditions } from './apply-resource.js';
import { resourceNotFound, type ResourcePath } from './exact-resource.js';
import { checkGenerationFence, checkRevisionFence, requireGenerationFence } from './fences.js';
import type { ImportRequest } from './resource-request.js';
import { renderResource } from './resource-representation.js';
import { checkWrite, commitWrite } from './resource-write.js';
import { assertUpdatePermitted } from './update-rules.js';

/** Reservation namespace of import claims (not a declared-constraint namespace: updates keep it). */
export const NATIVE_ID_NAMESPACE = 'import|nativeId';

export interface ImportInput {
  readonly caller: Caller;
  readonly path: ResourcePath;
  readonly request: ImportRequest;
  readonly preconditions: ApplyPreconditions;
}

export async function importResource(host: HostContext, tx: StoreTransaction, input: ImportInput): Promise<IdempotentOutcome> {
  const { caller, path, request, preconditions } = input;
  assertBodyMatchesPath(request, path);
  const form = resolveForm(host.catalog, request.formRef);
  requireCapability(form, 'import');
  const admitted = admitSpec(form, request.spec);
  assertStandardServices(form, admitted.spec, host.satisfiableStandardServices);
  const header = preconditions.generationHeader;
  if (header !== undefined && request.metadataGeneration !== undefined && header !== request.metadataGeneration) {
    throw invalidArgument(`${GENERATION_FENCE_HEADER} and /metadata/generation disagree`, '/metadata/generation');
  }
  const fence = header ?? request.metadataGeneration;
  if (preconditions.ifNoneMatchStar && fence !== undefined) {
    throw invalidArgument('If-None-Match: * (new adoption) cannot be combined with a generation fence');
  }
  const address = { tenant: caller.tenant, space: request.space, group: path.group, kind: path.kind, name: path.name };
  await assertArtifactReference(tx, form, caller.tenant, admitted.spec);
  const current = await tx.findResource(address);
  const claim = await tx.findReservation(caller.tenant, NATIVE_ID_NAMESPACE, request.nativeId);
  const conflict = (): never => {
    throw new HostError('import_conflict', 'this nativeId is already adopted by another live resource of your tenant', {
      details: { pointer: '/nativeId' },
    });
  };

  if (current === undefined) {
    if (!preconditions.ifNoneMatchStar) {
      if (fence !== undefined) throw resourceNotFound(address);
      throw invalidArgument('a new adoption needs the If-None-Match: * header', undefined, { header: 'If-None-Match' });
    }
    if (preconditions.ifMatchRevision !== undefined) throw invalidArgument('If-Match cannot fence a new adoption', undefined, { header: 'If-Match' });
    if (claim !== undefined) conflict();
    const plan = { form, admitted, address, current: undefined };
    const { resource } = await commitWrite(host, tx, plan, await checkWrite(host, tx, plan));
    await tx.saveReservation({ tenant: caller.tenant, namespace: NATIVE_ID_NAMESPACE, value: request.nativeId, holderUid: resource.uid });
    return { response: jsonResponse(201, renderResource(resource), etagOfRevision(resource.revision)), boundUid: resource.uid };
  }

  if (preconditions.ifNoneMatchStar) {
    throw new HostError('generation_conflict', `a ${address.kind} named "${address.name}" already exists in this space`);
  }
  if (!sameFormRef(current.formRef, request.formRef)) throw resourceNotFound(address);
  checkGenerationFence(current, requireGenerationFence(fence, 'an import'));
  checkRevisionFence(current, preconditions.ifMatchRevision);
  const held = (await tx.reservationsHeldBy(current.uid)).find((reservation) => reservation.namespace === NATIVE_ID_NAMESPACE);
  if (held !== undefined && held.value !== request.nativeId) conflict();
  if (claim !== undefined && claim.holderUid !== current.uid) conflict();
  // Adopting in place may change the spec only where an update could.
  if (admitted.specDigest !== current.specDigest) assertUpdatePermitted(form, current, admitted.spec, admitted.specDigest);
  const plan = { form, admitted, address, current };
  const { resource } = await commitWrite(host, tx, plan, await checkWrite(host, tx, plan));
  if (held === undefined) {
    await tx.saveReservation({ tenant: caller.tenant, namespace: NATIVE_ID_NAMESPACE, value: request.nativeId, holderUid: resource.uid });
  }
  return { response: jsonResponse(200, renderResource(resource), etagOfRevision(resource.revision)), boundUid: resource.uid };
}
