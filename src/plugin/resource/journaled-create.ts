// Sending a create so that an interrupted one can be resumed and nothing else ever is (see
// create-journal.ts): each create is one attempt with a random attempt id, journaled before
// it leaves; a later create of the same name and spec in the same scope first sends the
// journaled attempt again, which the Host answers from its idempotency record.
import { jcsDigest } from '../../common/digest.js';
import { HostApiError, newAttemptId, type MutationOptions, type MutationResult, type ResourceRequest } from '../../host-client/index.js';
import type { LifecycleClient } from './lifecycle/host-access.js';
import type { CreateJournal, IgnoredEntry } from './create-journal.js';

export interface ResumedCreate {
  readonly result: MutationResult;
  /** True when the Host already had this very create (same uid before and after). */
  readonly resumed: boolean;
}

export interface ResumeOutcome {
  /** Set when a journaled attempt of this create was sent again and answered. */
  readonly resumed?: ResumedCreate;
  /** Entries that were found but not trusted (corrupt, foreign, stale), for warnings. */
  readonly ignored: readonly IgnoredEntry[];
  /**
   * Set when an interrupted create of this name was sent with another spec than now and the
   * Host holds the name: most likely that create made it. Its entry is kept; the caller
   * refuses the create and says how to take the resource over.
   */
  readonly changedSince?: { readonly writtenAt: string; readonly uid: string; readonly generation: string };
}

/**
 * Sends the journaled attempts of this name again, oldest first, when there are any for the
 * same spec. `resumed` is undefined when there is nothing to resume, or the Host no longer
 * honours it (the entry is then dropped and the caller creates normally). Transport failures
 * propagate: the entry stays for the next run.
 */
export async function resumeInterruptedCreate(
  client: LifecycleClient,
  journal: CreateJournal,
  request: ResourceRequest,
  options: MutationOptions,
): Promise<ResumeOutcome> {
  const { formRef } = request.form;
  const { space, name } = request.metadata;
  const { entries, ignored } = journal.claimPending(formRef, space, name);
  const specDigest = jcsDigest(request.spec);
  const found = [...ignored];
  let onHost: ReturnType<LifecycleClient['resources']['read']> | undefined; // read once, if needed
  for (const entry of entries) {
    if (entry.specDigest !== specDigest) {
      // The configuration changed since that create was sent: its request cannot be sent
      // again as it is (the journal keeps no spec, only its digest). If the name is free, that
      // create never took effect and a create with the new spec is another attempt. If the
      // Host holds the name, that create most likely made it: dropping the entry would leave
      // the resource on the Host and out of every state, so it is kept and the caller refuses.
      const existing = await (onHost ??= client.resources.read({ formRef, space, name }));
      if (existing)
        return { ignored: found, changedSince: { writtenAt: entry.writtenAt, uid: existing.metadata.uid, generation: existing.metadata.generation } };
      found.push({
        what: `the create journaled at ${entry.writtenAt}`,
        reason: 'the configuration changed since it was sent, and the Host does not have the name',
      });
      journal.forget(entry);
      continue;
    }
    // Whether the Host holds the name now tells a resume (same uid answered) from a create
    // whose earlier send never arrived (executed now, for the first time).
    const before = await client.resources.read({ formRef, space, name });
    try {
      const result = await client.resources.apply(request, entry.review, { kind: 'create' }, { ...options, attempt: entry.attempt });
      journal.answeredBy(entry);
      return { resumed: { result, resumed: before?.metadata.uid === result.resource.metadata.uid }, ignored: found };
    } catch (e) {
      if (e instanceof HostApiError) {
        // Not ours to resume (record expired and name taken, binding refused): nothing was
        // changed; try the next entry, or fall back to an ordinary create, which reports it.
        journal.forget(entry);
        continue;
      }
      throw e;
    }
  }
  return { ignored: found };
}

/** An ordinary create: a fresh attempt, journaled before it is sent. */
export async function journaledCreate(
  client: LifecycleClient,
  journal: CreateJournal,
  request: ResourceRequest,
  review: { prepareDigest: string; specDigest: string },
  options: MutationOptions,
): Promise<MutationResult> {
  const entry = await journal.record({
    formRef: request.form.formRef,
    space: request.metadata.space,
    name: request.metadata.name,
    specDigest: jcsDigest(request.spec),
    review,
    attempt: newAttemptId(),
  });
  let result: MutationResult;
  try {
    result = await client.resources.apply(request, review, { kind: 'create' }, { ...options, attempt: entry.attempt });
  } catch (e) {
    // A refusal is an answer: nothing was created, so there is nothing to resume. Only a
    // failure whose outcome is unknown keeps the entry.
    if (e instanceof HostApiError && !OUTCOME_UNKNOWN.has(e.code)) journal.forget(entry);
    throw e;
  }
  journal.answeredBy(entry);
  return result;
}

/** Host answers after which the create may or may not have happened. */
const OUTCOME_UNKNOWN = new Set(['internal_error', 'deadline_exceeded']);
