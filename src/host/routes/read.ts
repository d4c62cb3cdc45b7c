// GET {api}/resources/{group}/{kind}/{name}?space&definitionVersion&schemaDigest (wire reference §12.1).
import type { HostContext } from '../host-context.js';
import { etagOfRevision, jsonResponse, type HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import { requireCapability } from '../resources/admission.js';
import { findExactResource, readExactResourceQuery } from '../resources/exact-resource.js';
import { renderResource } from '../resources/resource-representation.js';
import { resourcePath } from './resource-path.js';

export async function handleRead(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const target = readExactResourceQuery(requireCaller(request), resourcePath(request), request.query);
  const { form, resource } = await host.store.transaction((tx) => findExactResource(host, tx, target));
  requireCapability(form, 'read');
  return jsonResponse(200, renderResource(resource), etagOfRevision(resource.revision));
}
