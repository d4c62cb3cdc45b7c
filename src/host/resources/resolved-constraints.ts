// The declared constraints that need resolved relations or stored state (wire reference §18):
// distinctPair, acyclic and sameResolvedTarget are judged against the uid pins; exclusive, claim
// and uniquePair are uniqueness rules kept as reservations, checked and written inside the one
// serialized transaction of the mutation (so two concurrent applies can never both win), and
// re-checked at an async commit. prepare runs the same checks without writing.
import { canonicalJson } from '../../common/digest.js';
import type { JsonObject } from '../../common/json-value.js';
import type { InstalledForm } from '../catalog.js';
import { invalidArgument } from '../errors.js';
import { formRefKey } from '../form-ref.js';
import { pointerTokens, resolvePointer } from '../../common/json-pointer.js';
import type { RelationPin, StoreTransaction } from '../store/store.js';
import { SPEC_POINTER } from './admission.js';

/** How far acyclic follows a chain before it gives up and refuses (fail closed). */
const MAXIMUM_TRAVERSAL = 1024;

/** Reservation namespaces of declared constraints start with this; import claims use another. */
export const CONSTRAINT_NAMESPACE_PREFIX = 'constraint|';

export interface ConstraintSubject {
  readonly form: InstalledForm;
  readonly tenant: string;
  readonly spec: JsonObject;
  readonly pins: readonly RelationPin[];
  /** The incarnation being changed; undefined for a create. */
  readonly uid: string | undefined;
}

/** distinctPair, acyclic and sameResolvedTarget. */
export async function checkPinnedConstraints(tx: StoreTransaction, subject: ConstraintSubject): Promise<void> {
  for (const constraint of subject.form.definition.constraints) {
    if (constraint.kind === 'distinctPair') {
      const [a, b] = constraint.references.map((relation) => pinAt(subject.pins, relation));
      if (a !== undefined && b !== undefined && a.targetUid === b.targetUid) {
        throw invalidArgument(
          `${SPEC_POINTER}${b.pointer} resolves to the same resource as ${SPEC_POINTER}${a.pointer} (distinctPair)`,
          SPEC_POINTER + b.pointer,
        );
      }
    } else if (constraint.kind === 'acyclic') {
      await checkAcyclic(tx, subject, constraint.reference);
    } else if (constraint.kind === 'sameResolvedTarget') {
      const anchor = pinAt(subject.pins, constraint.anchor);
      if (anchor === undefined) continue;
      for (const member of subject.pins.filter((pin) => pin.relation === constraint.members)) {
        const through = (await tx.relationsOf(member.targetUid)).find((pin) => pin.pointer === constraint.through);
        if (through === undefined || through.targetUid !== anchor.targetUid) {
          throw invalidArgument(
            `${SPEC_POINTER}${member.pointer} reaches ${through === undefined ? 'no resource' : `"${through.target.name}"`} ` +
              `through ${constraint.through}, not the resource ${SPEC_POINTER}${anchor.pointer} resolves to (sameResolvedTarget)`,
            SPEC_POINTER + member.pointer,
          );
        }
      }
    }
  }
}

/** exclusive, claim and uniquePair. With `write`, takes the reservations for `holderUid`. */
export async function reserveUniqueness(tx: StoreTransaction, subject: ConstraintSubject, holderUid: string | undefined, write: boolean): Promise<void> {
  const wanted: { namespace: string; value: string; pointer: string; rule: string }[] = [];
  const formKey = formRefKey(subject.form.formRef);
  for (const constraint of subject.form.definition.constraints) {
    if (constraint.kind === 'exclusive') {
      const keyedBy = constraint.keyedBy === undefined ? '' : canonicalJson(resolvePointer(subject.spec, constraint.keyedBy) ?? null);
      for (const pin of subject.pins.filter((candidate) => candidate.relation === constraint.reference)) {
        wanted.push({
          namespace: `${CONSTRAINT_NAMESPACE_PREFIX}exclusive|${formKey}|${constraint.reference}|${keyedBy}`,
          value: pin.targetUid,
          pointer: pin.pointer,
          rule: `another ${subject.form.formRef.kind} already holds "${pin.target.name}" (exclusive)`,
        });
      }
    } else if (constraint.kind === 'claim') {
      const value = resolvePointer(subject.spec, constraint.property);
      if (value === undefined) continue;
      wanted.push({
        namespace: `${CONSTRAINT_NAMESPACE_PREFIX}claim|${formKey}|${constraint.property}`,
        value: canonicalJson(value),
        pointer: constraint.property,
        rule: `is already claimed by another ${subject.form.formRef.kind} of your tenant (claim)`,
      });
    } else if (constraint.kind === 'uniquePair') {
      const [a, b] = constraint.references.map((relation) => pinAt(subject.pins, relation));
      if (a === undefined || b === undefined) continue;
      wanted.push({
        namespace: `${CONSTRAINT_NAMESPACE_PREFIX}uniquePair|${formKey}|${constraint.references.join('|')}`,
        value: `${a.targetUid} ${b.targetUid}`,
        pointer: b.pointer,
        rule: `the pair (${a.target.name}, ${b.target.name}) is already held by another ${subject.form.formRef.kind} (uniquePair)`,
      });
    }
  }
  for (const reservation of wanted) {
    const holder = await tx.findReservation(subject.tenant, reservation.namespace, reservation.value);
    if (holder !== undefined && holder.holderUid !== holderUid) {
      const pointer = reservation.pointer.startsWith('/') ? SPEC_POINTER + reservation.pointer : SPEC_POINTER;
      throw invalidArgument(`${pointer} ${reservation.rule}`, pointer);
    }
  }
  if (!write || holderUid === undefined) return;
  await tx.releaseReservations(holderUid, CONSTRAINT_NAMESPACE_PREFIX);
  for (const reservation of wanted) {
    await tx.saveReservation({ tenant: subject.tenant, namespace: reservation.namespace, value: reservation.value, holderUid });
  }
}

async function checkAcyclic(tx: StoreTransaction, subject: ConstraintSubject, relation: string): Promise<void> {
  const start = subject.pins.filter((pin) => pin.relation === relation);
  const visited = new Set<string>();
  const queue = start.map((pin) => ({ uid: pin.targetUid, via: pin.pointer }));
  let steps = 0;
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined) break;
    const refuse = (why: string): never => {
      throw invalidArgument(`${SPEC_POINTER}${next.via} ${why} (acyclic)`, SPEC_POINTER + next.via);
    };
    if (subject.uid !== undefined && next.uid === subject.uid) refuse('closes a cycle back to this resource');
    if (visited.has(next.uid)) refuse('leads into a cycle');
    if (++steps > MAXIMUM_TRAVERSAL) refuse(`leads through more than ${MAXIMUM_TRAVERSAL} resources`);
    visited.add(next.uid);
    const target = await tx.findResourceByUid(next.uid);
    // A pinned edge whose target is gone or replaced cannot be judged: fail closed.
    if (target === undefined) refuse('leads through a resource that no longer exists');
    for (const pin of await tx.relationsOf(next.uid)) {
      if (pin.relation !== relation) continue;
      const live = await tx.findResource(pin.target);
      if (live === undefined || live.uid !== pin.targetUid) refuse('leads through a relation whose target was replaced or removed');
      queue.push({ uid: pin.targetUid, via: next.via });
    }
  }
}

/** The pin of a non-wildcard relation pointer. */
function pinAt(pins: readonly RelationPin[], relation: string): RelationPin | undefined {
  return (pointerTokens(relation) ?? []).includes('*') ? undefined : pins.find((pin) => pin.relation === relation);
}
