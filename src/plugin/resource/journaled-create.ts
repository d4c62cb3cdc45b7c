// Sending a create so that an interrupted one can be resumed (see create-journal.ts): the
// request is journaled before it leaves, and a later create of the same name and spec first
// sends the journaled request again, which the Host answers from its idempotency record.
import { jcsDigest } from '../../common/digest.js';
import { HostApiError, type HostClient, type MutationOptions, type MutationResult, type ResourceRequest } from '../../host-client/index.js';
import type { CreateJournal } from './create-journal.js';

export interface ResumedCreate {
  readonly result: MutationResult;
  /** True when the Host already had this very create (same uid before and after). */
  readonly resumed: boolean;
}

/**
 * Sends the journaled create of this name again when there is one for the same spec.
 * Undefined when there is nothing to resume, or the Host no longer honours it (the entry is
 * then dropped and the caller creates normally). Transport failures propagate: the entry
 * stays for the next run.
 */
export async function resumeInterruptedCreate(client: HostClient, journal: CreateJournal, request: ResourceRequest, options: MutationOptions): Promise<ResumedCreate | undefined> {
  const { formRef } = request.form;
  const { space, name } = request.metadata;
  const entry = journal.find(formRef, space, name);
  if (!entry) return undefined;
  if (entry.specDigest !== jcsDigest(request.spec)) {
    // The configuration changed since the interrupted create: its binding cannot be reused.
    journal.forget(formRef, space, name);
    return undefined;
  }
  // Whether the Host holds the name now tells a resume (same uid answered) from a fresh create.
  const before = await client.resources.read({ formRef, space, name });
  try {
    const result = await client.resources.apply(request, entry.review, { kind: 'create' }, options);
    return { result, resumed: before?.metadata.uid === result.resource.metadata.uid };
  } catch (e) {
    if (e instanceof HostApiError) {
      // Not ours to resume (expired record, binding refused, name taken by someone else):
      // nothing was changed; fall back to an ordinary create, which reports what is wrong.
      journal.forget(formRef, space, name);
      return undefined;
    }
    throw e;
  }
}

/** An ordinary create, journaled before it is sent. */
export async function journaledCreate(
  client: HostClient,
  journal: CreateJournal,
  request: ResourceRequest,
  review: { prepareDigest: string; specDigest: string },
  options: MutationOptions,
): Promise<MutationResult> {
  const entry = { formRef: request.form.formRef, space: request.metadata.space, name: request.metadata.name, specDigest: jcsDigest(request.spec), review };
  await journal.record(entry);
  let result: MutationResult;
  try {
    result = await client.resources.apply(request, review, { kind: 'create' }, options);
  } catch (e) {
    // A refusal is an answer: nothing was created, so there is nothing to resume. Only a
    // failure whose outcome is unknown keeps the entry.
    if (e instanceof HostApiError && !OUTCOME_UNKNOWN.has(e.code)) journal.forget(entry.formRef, entry.space, entry.name);
    throw e;
  }
  return result;
}

/** Host answers after which the create may or may not have happened. */
const OUTCOME_UNKNOWN = new Set(['internal_error', 'deadline_exceeded']);
