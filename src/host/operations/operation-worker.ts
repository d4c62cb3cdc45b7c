// The background half of Operation leases. Every Host process renews the leases it holds (its
// heartbeat) and commits the Operations that are due and either held by it or abandoned by a
// holder whose lease expired (a process that died). A poll commits a due Operation itself when
// it can take the lease; this worker covers the polls that landed on another process.
import type { HostContext } from '../host-context.js';
import type { StoreTransaction, StoredOperation } from '../store/store.js';

export type AdvanceOperation = (host: HostContext, tx: StoreTransaction, operation: StoredOperation) => Promise<string>;

export interface OperationWorker {
  /** Stops the timer, waits for a running tick, and gives up this process's leases. */
  stop(): Promise<void>;
}

/** Due Operations committed per tick; more wait for the next one. */
const BATCH = 20;

export function startOperationWorker(host: HostContext, advance: AdvanceOperation): OperationWorker {
  // Renew well before expiry, so a slow tick never lets a live holder's lease lapse.
  const intervalMs = Math.max(50, Math.min(1000, Math.floor(host.operationLeaseMs / 4)));
  let running: Promise<void> | undefined;
  const tick = async (): Promise<void> => {
    await host.store.transaction((tx) => tx.renewOperationLeases(host.instanceId, host.operationLeaseMs));
    const due = await host.store.transaction((tx) => tx.dueOperations(host.instanceId, BATCH));
    for (const id of due) {
      const tenant = (await host.store.transaction((tx) => tx.findOperation(id)))?.tenant;
      if (tenant === undefined) continue;
      await host.store.transaction(
        async (tx) => {
          const operation = await tx.findOperation(id);
          if (operation === undefined || operation.pending === undefined) return;
          if (!(await tx.acquireOperationLease(id, host.instanceId, host.operationLeaseMs))) return;
          await advance(host, tx, operation);
        },
        { queue: tenant },
      );
    }
  };
  const timer = setInterval(() => {
    if (running !== undefined) return;
    running = tick()
      .catch((error: unknown) => host.log(`operation worker: ${(error as Error).message}`))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      // A restarted or surviving process takes these over at once instead of after expiry.
      await host.store
        .transaction((tx) => tx.releaseOperationLeases(host.instanceId))
        .catch((error: unknown) => host.log(`operation worker: could not release leases: ${(error as Error).message}`));
    },
  };
}
