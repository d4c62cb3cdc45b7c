// Committing a deferred mutation (wire reference §13.4), inside the poll's transaction. The
// mutation resolves through what was recorded when it was accepted: an update or delete accepted
// against uid U finds the name held by another incarnation → terminal uid_mismatch, by nothing →
// terminal resource_not_found. Everything else (fences, relations, constraints, claims, standard
// services) is decided again by running the route's own mutation against the current state.
import type { IncomingHttpHeaders } from 'node:http';
import { parseIJson } from '../../common/ijson.js';
import type { JsonObject, JsonValue } from '../../common/json-value.js';
import { HostError } from '../errors.js';
import type { HostContext } from '../host-context.js';
import { parseQuery } from '../http/query.js';
import { matchRoute, type RouteName } from '../http/router.js';
import type { RouteRequest } from '../http/route-request.js';
import type { IdempotentOutcome } from '../idempotency.js';
import type { StoreTransaction } from '../store/store.js';
import { NO_FAULT } from '../test-switches.js';
import type { DeferredMutation, MutationPlan } from './mutation-plan.js';
import { failedOperation, succeededOperation } from './operation-document.js';

export type MutationPlanner = (host: HostContext, request: RouteRequest) => MutationPlan;

/** Runs the deferred mutation and returns the terminal Operation document. */
export async function commitDeferred(
  host: HostContext,
  tx: StoreTransaction,
  id: string,
  deferred: DeferredMutation,
  planners: Readonly<Partial<Record<RouteName, MutationPlanner>>>,
  queryKeys: (route: RouteName) => readonly string[],
): Promise<JsonObject> {
  try {
    const outcome = await tx.savepoint(() => runDeferred(host, tx, deferred, planners, queryKeys));
    const body: JsonValue =
      outcome.response.body.length === 0 ? { deleted: true } : (JSON.parse(Buffer.from(outcome.response.body).toString('utf8')) as JsonValue);
    // Ambiguity A4: a delete's result is {"deleted": true}; apply and import wrap the resource.
    const result: JsonObject = outcome.response.status === 204 ? { deleted: true } : { resource: body };
    return succeededOperation(id, result);
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    return failedOperation(id, error, deferred.requestId);
  }
}

async function runDeferred(
  host: HostContext,
  tx: StoreTransaction,
  deferred: DeferredMutation,
  planners: Readonly<Partial<Record<RouteName, MutationPlanner>>>,
  queryKeys: (route: RouteName) => readonly string[],
): Promise<IdempotentOutcome> {
  const queryStart = deferred.target.indexOf('?');
  const path = queryStart < 0 ? deferred.target : deferred.target.slice(0, queryStart);
  const match = matchRoute(deferred.method, path);
  const planner = match === undefined ? undefined : planners[match.name];
  if (match === undefined || planner === undefined) throw new Error(`operation stores an unknown mutation ${deferred.method} ${path}`);
  const rawBody = Buffer.from(deferred.body, 'base64');
  const headers: IncomingHttpHeaders = { ...deferred.headers };
  const request: RouteRequest = {
    requestId: deferred.requestId,
    method: deferred.method,
    target: deferred.target,
    params: match.params,
    query: parseQuery(queryStart < 0 ? '' : deferred.target.slice(queryStart + 1), queryKeys(match.name)),
    headers,
    caller: { tenant: deferred.tenant, principal: deferred.principal },
    rawBody,
    body: rawBody.length === 0 ? undefined : (parseIJson(rawBody) as JsonValue),
    localEndpoint: '',
    scheme: 'http',
    fault: NO_FAULT,
  };
  const plan = planner(host, request);
  if (deferred.pinnedUid !== undefined && plan.address !== undefined) {
    const current = await tx.findResource(plan.address);
    if (current === undefined) throw new HostError('resource_not_found', 'the resource this operation was accepted for no longer exists');
    if (current.uid !== deferred.pinnedUid) {
      throw new HostError('uid_mismatch', `the name is now held by another incarnation (uid ${current.uid}, accepted against ${deferred.pinnedUid})`);
    }
  }
  return plan.execute(tx);
}
