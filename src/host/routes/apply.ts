// PUT {api}/resources/{group}/{kind}/{name} (wire reference §11.3), idempotent per §10.2.
import type { HostContext } from '../host-context.js';
import type { HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import { applyResource } from '../resources/apply-resource.js';
import { readApplyRequest } from '../resources/resource-request.js';
import { runMutation } from './mutation.js';
import { planResourceWrite } from './resource-write-plan.js';

export function planApply(host: HostContext, request: RouteRequest): MutationPlan {
  // Envelope refusals happen inside, so they are recorded under the key like any other answer.
  return planResourceWrite(request, (tx, target) => applyResource(host, tx, { ...target, request: readApplyRequest(request.body) }));
}

export function handleApply(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return runMutation(host, request, planApply(host, request));
}
