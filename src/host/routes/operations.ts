// GET {api}/operations/{id} and POST {api}/operations/{id}/cancel (wire reference §13). An
// Operation belongs to the tenant and principal that started it; anyone else gets
// operation_not_found, exactly like a never-issued id. A pending Operation answers "pending" with
// Retry-After for its first polls (--operation-pending-polls), then commits its mutation on the
// next poll; a terminal document replays byte for byte forever after.
import type { JsonObject } from '../../common/json-value.js';
import { HostError } from '../errors.js';
import type { HostContext } from '../host-context.js';
import type { HostResponse } from '../http/response.js';
import { pathParameter, requireCaller, type RouteRequest } from '../http/route-request.js';
import type { RouteName } from '../http/router.js';
import { executeIdempotently } from '../idempotency.js';
import { RETRY_AFTER_SECONDS } from '../operations/accept-operation.js';
import { commitDeferred, type MutationPlanner } from '../operations/commit-operation.js';
import type { DeferredMutation } from '../operations/mutation-plan.js';
import { failedOperation } from '../operations/operation-document.js';
import { EXACT_RESOURCE_QUERY_KEYS } from '../resources/exact-resource.js';
import type { StoreTransaction, StoredOperation } from '../store/store.js';
import { planApply } from './apply.js';
import { planDelete } from './delete.js';
import { planImport } from './import.js';

const OPERATION_ID = /^op_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;
const PLANNERS: Partial<Record<RouteName, MutationPlanner>> = { apply: planApply, import: planImport, delete: planDelete };
const queryKeysOf = (route: RouteName): readonly string[] => (route === 'delete' ? EXACT_RESOURCE_QUERY_KEYS : []);

export async function handleOperation(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const id = operationId(request);
  return host.store.transaction(
    async (tx) => {
      const operation = await ownedOperation(tx, request, id);
      if (operation.pending === undefined) return documentResponse(operation.document);
      if (operation.pollsLeft > 0) {
        await tx.saveOperation({ ...operation, pollsLeft: operation.pollsLeft - 1 });
        return pendingResponse(operation.document);
      }
      // Due. Only the process holding the lease advances it; a lease held by another live process
      // stays with it: that process's worker commits it (operation-worker.ts), and the client's next
      // poll, wherever it lands, sees the outcome. A dead holder's lease expires and is taken here.
      if (!(await tx.acquireOperationLease(id, host.instanceId, host.operationLeaseMs))) {
        await tx.requestOperationCommit(id);
        return pendingResponse(operation.document);
      }
      return documentResponse(await advanceOperation(host, tx, operation));
    },
    { queue: requireCaller(request).tenant },
  );
}

/**
 * Commits a pending Operation's mutation and stores its terminal document (returned). The caller
 * holds the Operation's lease, in the same transaction.
 */
export async function advanceOperation(host: HostContext, tx: StoreTransaction, operation: StoredOperation): Promise<string> {
  if (operation.pending === undefined) return operation.document;
  const deferred = JSON.parse(operation.pending) as DeferredMutation;
  const document = await commitDeferred(host, tx, operation.id, deferred, PLANNERS, queryKeysOf);
  const produced = producedUid(document);
  // The 202 record now reports this incarnation: deleting it must retire the record (§10.2).
  if (produced !== undefined) await tx.bindOperationRecords(operation.id, produced);
  const terminal = JSON.stringify(document);
  await tx.saveOperation({ ...operation, document: terminal, pending: undefined, pollsLeft: 0 });
  return terminal;
}

/** Cancelling a pending Operation makes it terminal with operation_cancelled; a terminal one replays. */
export function handleOperationCancel(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const id = operationId(request);
  return executeIdempotently(host, request, '', async (tx) => {
    const operation = await ownedOperation(tx, request, id);
    if (operation.pending === undefined) return { response: documentResponse(operation.document) };
    const cancelled = failedOperation(id, new HostError('operation_cancelled', 'the operation was cancelled before it committed'), request.requestId);
    const document = JSON.stringify(cancelled);
    await tx.saveOperation({ ...operation, document, pending: undefined, pollsLeft: 0 });
    return { response: documentResponse(document) };
  });
}

function operationId(request: RouteRequest): string {
  const id = pathParameter(request, 'operationId');
  if (!OPERATION_ID.test(id)) throw new HostError('operation_not_found', 'no operation of yours has this id');
  return id;
}

async function ownedOperation(tx: StoreTransaction, request: RouteRequest, id: string): Promise<StoredOperation> {
  const caller = requireCaller(request);
  const operation = await tx.findOperation(id);
  if (operation === undefined || operation.tenant !== caller.tenant || operation.principal !== caller.principal) {
    throw new HostError('operation_not_found', 'no operation of yours has this id');
  }
  return operation;
}

function pendingResponse(document: string): HostResponse {
  return { ...documentResponse(document), retryAfter: RETRY_AFTER_SECONDS };
}

function documentResponse(document: string): HostResponse {
  return { status: 200, body: Buffer.from(document, 'utf8') };
}

/** The uid of the resource a succeeded Operation reports (apply, import), if any. */
function producedUid(document: JsonObject): string | undefined {
  const result = document.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
  const resource = result.resource;
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) return undefined;
  const metadata = resource.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined;
  return typeof metadata.uid === 'string' ? metadata.uid : undefined;
}
