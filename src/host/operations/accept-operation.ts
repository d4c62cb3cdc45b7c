// Accepting a mutation asynchronously (wire reference §13): the mutation is first tried inside a
// savepoint that is always rolled back, so anything it would refuse is answered directly (and
// recorded under the Idempotency-Key like any refusal). Otherwise an Operation is stored with a
// snapshot of the request and the uid the mutation addresses, and the answer is 202 + Retry-After.
import type { JsonObject } from '../../common/json-value.js';
import type { HostContext } from '../host-context.js';
import { jsonResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { StoreTransaction } from '../store/store.js';
import type { DeferredMutation, MutationPlan } from './mutation-plan.js';
import { pendingOperation } from './operation-document.js';

export const RETRY_AFTER_SECONDS = '1';
const SNAPSHOT_HEADERS = ['if-match', 'if-none-match', 'takoform-expected-generation', 'content-type'];

class TrialRollback extends Error {
  constructor(readonly outcome: IdempotentOutcome) {
    super('trial run rolled back');
  }
}

export async function acceptAsOperation(host: HostContext, tx: StoreTransaction, request: RouteRequest, plan: MutationPlan): Promise<IdempotentOutcome> {
  try {
    await tx.savepoint(async () => {
      throw new TrialRollback(await plan.execute(tx));
    });
  } catch (error) {
    if (!(error instanceof TrialRollback)) throw error;
  }
  const caller = requireCaller(request);
  const current = plan.address === undefined ? undefined : await tx.findResource(plan.address);
  const headers: Record<string, string> = {};
  for (const name of SNAPSHOT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const deferred: DeferredMutation = {
    method: request.method,
    target: request.target,
    headers,
    body: Buffer.from(request.rawBody).toString('base64'),
    tenant: caller.tenant,
    principal: caller.principal,
    requestId: request.requestId,
    pinnedUid: current?.uid,
  };
  const id = host.mintHandle('op');
  const document: JsonObject = pendingOperation(id);
  await tx.saveOperation({
    id,
    tenant: caller.tenant,
    principal: caller.principal,
    document: JSON.stringify(document),
    pending: JSON.stringify(deferred),
    pollsLeft: host.operationPendingPolls,
  });
  // The accepting process holds the Operation first; it renews the lease while it lives.
  await tx.acquireOperationLease(id, host.instanceId, host.operationLeaseMs);
  return { response: { ...jsonResponse(202, { operation: document }), retryAfter: RETRY_AFTER_SECONDS }, operationId: id };
}
