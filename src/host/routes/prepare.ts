// POST {api}/resources/prepare (wire reference §11.2).
import type { HostContext } from '../host-context.js';
import { readGenerationFence } from '../http/preconditions.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import { prepareResource } from '../resources/prepare-resource.js';
import { readResourceRequest } from '../resources/resource-request.js';

export async function handlePrepare(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const input = {
    caller: requireCaller(request),
    request: readResourceRequest(request.body),
    generationFence: readGenerationFence(request.headers),
  };
  // Prepare writes a binding: queued with the tenant's other writers (store.ts TransactionOptions).
  return jsonResponse(200, await host.store.transaction((tx) => prepareResource(host, tx, input), { queue: input.caller.tenant }));
}
