// delete (wire reference §12.4): removes exactly the addressed incarnation under a required
// generation fence and an optional If-Match. Deleting it also retires the idempotency records
// bound to its uid (the store's job). Runs inside the idempotent transaction.
import type { HostContext } from '../host-context.js';
import { noContentResponse } from '../http/response.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { StoreTransaction } from '../store/store.js';
import { requireCapability } from './admission.js';
import { findExactResource, type ExactResourceTarget } from './exact-resource.js';
import { checkGenerationFence, checkRevisionFence, requireGenerationFence } from './fences.js';

export interface DeleteInput {
  readonly target: ExactResourceTarget;
  readonly generationFence: string | undefined;
  readonly ifMatchRevision: string | undefined;
}

export function deleteResource(host: HostContext, tx: StoreTransaction, input: DeleteInput): IdempotentOutcome {
  const fence = requireGenerationFence(input.generationFence, 'delete');
  const { form, resource } = findExactResource(host, tx, input.target);
  checkGenerationFence(resource, fence);
  checkRevisionFence(resource, input.ifMatchRevision);
  requireCapability(form, 'delete');
  tx.deleteResource(resource.uid);
  // A 204 reports no live incarnation, so its record is not bound and keeps replaying.
  return { response: noContentResponse() };
}
