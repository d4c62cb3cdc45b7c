// POST {api}/resources/{group}/{kind}/{name}/import (wire reference §12.3), idempotent per §10.2.
import type { HostContext } from '../host-context.js';
import { readGenerationFence, readIfMatchRevision, readIfNoneMatchStar } from '../http/preconditions.js';
import type { HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import { importResource } from '../resources/import-resource.js';
import { readImportRequest, requestedSpace } from '../resources/resource-request.js';
import { runMutation } from './mutation.js';
import { resourcePath } from './resource-path.js';

export function planImport(host: HostContext, request: RouteRequest): MutationPlan {
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
    execute: (tx) => importResource(host, tx, { caller, path, preconditions, request: readImportRequest(request.body) }),
  };
}

export function handleImport(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return runMutation(host, request, planImport(host, request));
}
