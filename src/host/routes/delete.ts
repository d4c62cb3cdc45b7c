// DELETE {api}/resources/{group}/{kind}/{name}?space&definitionVersion&schemaDigest (wire
// reference §12.4), idempotent per §10.2.
import type { HostContext } from '../host-context.js';
import { readGenerationFence, readIfMatchRevision } from '../http/preconditions.js';
import type { HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import { deleteResource } from '../resources/delete-resource.js';
import { readExactResourceQuery } from '../resources/exact-resource.js';
import { runMutation } from './mutation.js';
import { resourcePath } from './resource-path.js';

export function planDelete(host: HostContext, request: RouteRequest): MutationPlan {
  const target = readExactResourceQuery(requireCaller(request), resourcePath(request), request.query);
  const input = {
    target,
    generationFence: readGenerationFence(request.headers),
    ifMatchRevision: readIfMatchRevision(request.headers),
  };
  return { space: target.address.space, address: target.address, execute: (tx) => deleteResource(host, tx, input) };
}

export function handleDelete(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return runMutation(host, request, planDelete(host, request));
}
