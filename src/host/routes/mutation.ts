// Runs a mutating route: idempotently, and either now or (async Form, or the test header) behind
// an Operation that commits later.
import type { HostContext } from '../host-context.js';
import type { HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import { executeIdempotently } from '../idempotency.js';
import { acceptAsOperation } from '../operations/accept-operation.js';
import type { MutationPlan } from '../operations/mutation-plan.js';
import { wantsAsync } from '../test-switches.js';

export function runMutation(host: HostContext, request: RouteRequest, plan: MutationPlan): Promise<HostResponse> {
  const address = plan.address;
  const deferred = address !== undefined && wantsAsync(host, request.headers, address.group, address.kind);
  return executeIdempotently(host, request, plan.space, deferred ? (tx) => acceptAsOperation(host, tx, request, plan) : plan.execute);
}
