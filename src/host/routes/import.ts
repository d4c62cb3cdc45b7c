// POST {api}/resources/{group}/{kind}/{name}/import (wire reference §12.3), idempotent per §10.2.
import type { HostContext } from '../host-context.js';
import type { HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import { importResource } from '../resources/import-resource.js';
import { readImportRequest } from '../resources/resource-request.js';
import { runMutation } from './mutation.js';
import { planResourceWrite } from './resource-write-plan.js';

export function planImport(host: HostContext, request: RouteRequest): MutationPlan {
  return planResourceWrite(request, (tx, target) => importResource(host, tx, { ...target, request: readImportRequest(request.body) }));
}

export function handleImport(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return runMutation(host, request, planImport(host, request));
}
