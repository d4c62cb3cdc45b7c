// Derived readiness (wire reference §9, §17): a source pins its targets by uid and exact FormRef.
// When a pinned target is removed or replaced, every source pinning it is re-rendered in the same
// transaction: Ready=False with DependencyMissing (gone) or ExternalChange (another incarnation or
// another exact FormRef holds the name). Its revision moves, its generation does not, and the
// condition stays until the source is re-applied (a name is never silently re-resolved).
import { canonicalJson } from '../../common/digest.js';
import { describeFormRef, sameFormRef } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import type { RelationPin, ResourceAddress, StoreTransaction } from '../store/store.js';
import { SPEC_POINTER } from './admission.js';
import { nextCounter } from './counters.js';
import { notReadyStatus, type NotReady } from './resource-representation.js';

/** The first broken pin of a source, or undefined when every pinned target is still the one pinned. */
export async function relationHealth(tx: StoreTransaction, pins: readonly RelationPin[]): Promise<NotReady | undefined> {
  for (const pin of pins) {
    const live = await tx.findResource(pin.target);
    const at = SPEC_POINTER + pin.pointer;
    if (live === undefined) {
      return {
        reason: 'DependencyMissing',
        hostReason: `relation ${at}: ${pin.target.kind} ${pin.target.name} (uid ${pin.targetUid}) is gone`,
        message: `relation ${at}: the pinned ${pin.target.kind} "${pin.target.name}" (uid ${pin.targetUid}, ${describeFormRef(pin.targetFormRef)}) no longer exists; re-apply after it is back`,
      };
    }
    if (live.uid !== pin.targetUid || !sameFormRef(live.formRef, pin.targetFormRef)) {
      return {
        reason: 'ExternalChange',
        hostReason: `relation ${at}: pinned uid ${pin.targetUid}, now uid ${live.uid}`,
        message:
          `relation ${at}: ${pin.target.kind} "${pin.target.name}" was pinned as uid ${pin.targetUid} under ${describeFormRef(pin.targetFormRef)}; ` +
          `it is now uid ${live.uid} under ${describeFormRef(live.formRef)}; re-apply to re-pin`,
      };
    }
  }
  return undefined;
}

/** Re-renders every live source that pins a resource at `address`. */
export async function refreshDependents(host: HostContext, tx: StoreTransaction, address: ResourceAddress): Promise<void> {
  const sourceUids = [...new Set((await tx.relationsTargetingAddress(address)).map((pin) => pin.sourceUid))];
  for (const uid of sourceUids) {
    const source = await tx.findResourceByUid(uid);
    if (source === undefined) continue;
    const problem = await relationHealth(tx, await tx.relationsOf(uid));
    if (problem === undefined) continue;
    const status = notReadyStatus(source.status, problem, host.now());
    if (canonicalJson(status) === canonicalJson(source.status)) continue;
    await tx.updateResource({ ...source, status, revision: nextCounter(source.revision) });
  }
}
