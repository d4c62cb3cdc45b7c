// POST {api}/resources/{group}/{kind}/{name}/observe?space&definitionVersion&schemaDigest (wire
// reference §12.2). Generation-fenced, never idempotency-keyed (an Idempotency-Key is ignored,
// ambiguity A8). The reference Host has no backend to re-observe, so the representation, and
// with it the revision, stays as it is.
import type { HostContext } from '../host-context.js';
import { readGenerationFence } from '../http/preconditions.js';
import { etagOfRevision, jsonResponse, type HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import { requireCapability } from '../resources/admission.js';
import { findExactResource, readExactResourceQuery } from '../resources/exact-resource.js';
import { checkGenerationFence, requireGenerationFence } from '../resources/fences.js';
import { renderResource } from '../resources/resource-representation.js';
import { resourcePath } from './resource-path.js';

export function handleObserve(host: HostContext, request: RouteRequest): HostResponse {
  const target = readExactResourceQuery(requireCaller(request), resourcePath(request), request.query);
  const fence = requireGenerationFence(readGenerationFence(request.headers), 'observe');
  const { form, resource } = host.store.transaction((tx) => findExactResource(host, tx, target));
  requireCapability(form, 'observe');
  checkGenerationFence(resource, fence);
  return jsonResponse(200, { resource: renderResource(resource) }, etagOfRevision(resource.revision));
}
