// What apply (PUT) and import (POST .../import) share before their own logic runs: the caller,
// the addressed path, the precondition headers and the space that scopes the idempotency record.
import type { Caller } from '../auth.js';
import { readGenerationFence, readIfMatchRevision, readIfNoneMatchStar } from '../http/preconditions.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import type { ApplyPreconditions } from '../resources/apply-resource.js';
import type { ResourcePath } from '../resources/exact-resource.js';
import { requestedSpace } from '../resources/resource-request.js';
import type { StoreTransaction } from '../store/store.js';
import { resourcePath } from './resource-path.js';

export interface ResourceWriteTarget {
  readonly caller: Caller;
  readonly path: ResourcePath;
  readonly preconditions: ApplyPreconditions;
}

export function planResourceWrite(
  request: RouteRequest,
  execute: (tx: StoreTransaction, target: ResourceWriteTarget) => Promise<IdempotentOutcome>,
): MutationPlan {
  const caller = requireCaller(request);
  const path = resourcePath(request);
  const preconditions: ApplyPreconditions = {
    ifNoneMatchStar: readIfNoneMatchStar(request.headers),
    ifMatchRevision: readIfMatchRevision(request.headers),
    generationHeader: readGenerationFence(request.headers),
  };
  const space = requestedSpace(request.body);
  return {
    space: space ?? '',
    address: space === undefined ? undefined : { tenant: caller.tenant, space, ...path },
    execute: (tx) => execute(tx, { caller, path, preconditions }),
  };
}
