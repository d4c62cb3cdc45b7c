// PUT {api}/resources/{group}/{kind}/{name} (wire reference §11.3), idempotent per §10.2.
import type { HostContext } from '../host-context.js';
import { readGenerationFence, readIfMatchRevision, readIfNoneMatchStar } from '../http/preconditions.js';
import type { HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import { applyResource } from '../resources/apply-resource.js';
import { readApplyRequest, requestedSpace } from '../resources/resource-request.js';
import { runMutation } from './mutation.js';
import { resourcePath } from './resource-path.js';

export function planApply(host: HostContext, request: RouteRequest): MutationPlan {
  const caller = requireCaller(request);
  const path = resourcePath(request);
  const preconditions = {
    ifNoneMatchStar: readIfNoneMatchStar(request.headers),
    ifMatchRevision: readIfMatchRevision(request.headers),
    generationHeader: readGenerationFence(request.headers),
  };
  const space = requestedSpace(request.body);
  return {
    space: space ?? '',
    address: space === undefined ? undefined : { tenant: caller.tenant, space, ...path },
    // Envelope refusals happen inside, so they are recorded under the key like any other answer.
    execute: (tx) => applyResource(host, tx, { caller, path, preconditions, request: readApplyRequest(request.body) }),
  };
}

export function handleApply(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return runMutation(host, request, planApply(host, request));
}
