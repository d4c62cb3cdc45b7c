// delete (wire reference §12.4): removes exactly the addressed incarnation under a required
// generation fence and an optional If-Match. A live relation of another resource that pins it
// refuses the delete (dependency_in_use; a self-reference does not block). Deleting it releases
// its relations, reservations and import claim and retires the idempotency records bound to its
// uid (the store's job). Runs inside the idempotent transaction.
import { HostError } from '../errors.js';
import type { HostContext } from '../host-context.js';
import { noContentResponse } from '../http/response.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { StoreTransaction, StoredResource } from '../store/store.js';
import { SPEC_POINTER, requireCapability } from './admission.js';
import { refreshDependents } from './dependents.js';
import { findExactResource, type ExactResourceTarget } from './exact-resource.js';
import { checkGenerationFence, checkRevisionFence, requireGenerationFence } from './fences.js';

export interface DeleteInput {
  readonly target: ExactResourceTarget;
  readonly generationFence: string | undefined;
  readonly ifMatchRevision: string | undefined;
}

export async function deleteResource(host: HostContext, tx: StoreTransaction, input: DeleteInput): Promise<IdempotentOutcome> {
  const fence = requireGenerationFence(input.generationFence, 'delete');
  const { form, resource } = await findExactResource(host, tx, input.target);
  checkGenerationFence(resource, fence);
  checkRevisionFence(resource, input.ifMatchRevision);
  requireCapability(form, 'delete');
  await assertNotPinned(tx, resource);
  await removeIncarnation(host, tx, resource);
  // A 204 reports no live incarnation, so its record is not bound and keeps replaying.
  return { response: noContentResponse() };
}

/** Removes an incarnation and re-renders whatever pins its address (used by the test switch too). */
export async function removeIncarnation(host: HostContext, tx: StoreTransaction, resource: StoredResource): Promise<void> {
  await tx.deleteResource(resource.uid);
  await refreshDependents(host, tx, resource.address);
}

async function assertNotPinned(tx: StoreTransaction, resource: StoredResource): Promise<void> {
  const dependent = (await tx.relationsTargetingUid(resource.uid)).find((pin) => pin.sourceUid !== resource.uid);
  if (dependent === undefined) return;
  const source = await tx.findResourceByUid(dependent.sourceUid);
  const who = source === undefined ? 'another resource' : `${source.address.kind} "${source.address.name}"`;
  throw new HostError('dependency_in_use', `${who} pins this resource through ${SPEC_POINTER}${dependent.pointer}; delete or re-point it first`, {
    details: { dependentPointer: SPEC_POINTER + dependent.pointer },
  });
}
