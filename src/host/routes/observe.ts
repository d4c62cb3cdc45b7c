// POST {api}/resources/{group}/{kind}/{name}/observe?space&definitionVersion&schemaDigest (wire
// reference §12.2). Generation-fenced, never idempotency-keyed (an Idempotency-Key is ignored,
// ambiguity A8). Re-observes what the Host can observe: the pinned relations. A broken pin turns
// the resource Ready=False (revision moves, generation does not); otherwise nothing changes.
import { canonicalJson } from '../../common/digest.js';
import type { HostContext } from '../host-context.js';
import { readGenerationFence } from '../http/preconditions.js';
import { etagOfRevision, jsonResponse, type HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import { requireCapability } from '../resources/admission.js';
import { nextCounter } from '../resources/counters.js';
import { relationHealth } from '../resources/dependents.js';
import { findExactResource, readExactResourceQuery } from '../resources/exact-resource.js';
import { checkGenerationFence, requireGenerationFence } from '../resources/fences.js';
import { notReadyStatus, renderResource } from '../resources/resource-representation.js';
import { resourcePath } from './resource-path.js';

export async function handleObserve(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const target = readExactResourceQuery(requireCaller(request), resourcePath(request), request.query);
  const fence = requireGenerationFence(readGenerationFence(request.headers), 'observe');
  const resource = await host.store.transaction(
    async (tx) => {
      const { form, resource: current } = await findExactResource(host, tx, target);
      requireCapability(form, 'observe');
      checkGenerationFence(current, fence);
      const problem = await relationHealth(tx, await tx.relationsOf(current.uid));
      if (problem === undefined) return current;
      const status = notReadyStatus(current.status, problem, host.now());
      if (canonicalJson(status) === canonicalJson(current.status)) return current;
      const observed = { ...current, status, revision: nextCounter(current.revision) };
      await tx.updateResource(observed);
      return observed;
    },
    { queue: requireCaller(request).tenant },
  );
  return jsonResponse(200, { resource: renderResource(resource) }, etagOfRevision(resource.revision));
}
