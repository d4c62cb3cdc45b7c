// Applying a planned change of one resource of any kind: a create (resuming an interrupted
// attempt of this working directory first), an update with the generation and uid fences,
// or a delete (delete.ts). The binding from plan is used when it still matches; otherwise
// apply prepares again and refuses if the Host would now store anything else than the plan
// showed. A 202 is followed up to the `timeouts` value; past it the state records the
// Operation (pending.ts) so that no resource the Host may be creating is ever lost.
import { canonicalJson, jcsDigest } from '../../../common/digest.js';
import { AcceptedOutcomeUnknownError, HostApiError, resourceRequest, type JsonObject, type ResourceResponse } from '../../../host-client/index.js';
import { errorDiag, type Diagnostic } from '../../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import { SpecConversionError } from '../../schema/form-mapping.js';
import type { TfObject } from '../../values/tf-value.js';
import { readEnvelope } from '../envelope.js';
import { journaledCreate, resumeInterruptedCreate } from '../journaled-create.js';
import type { ResourceKind } from '../resource-kind.js';
import { operationTimeout } from '../timeouts.js';
import {
  changedSinceInterruptedCreate,
  createConflictDiagnostic,
  diagnosticContext,
  ignoredEntryWarnings,
  readinessWarnings,
  resumedWarning,
  withTimeouts,
} from './common.js';
import { deleteResource } from './delete.js';
import type { HostAccess } from './host-access.js';
import { pendingState, settlePending } from './pending.js';
import type { ResourcePrivate } from './resource-private.js';

export interface StateResult {
  readonly state: TfObject | null;
  readonly private: ResourcePrivate;
  readonly diagnostics: Diagnostic[];
}

export async function applyChange(
  kind: ResourceKind,
  host: HostAccess,
  recorded: TfObject | null,
  planned: TfObject | null,
  plannedPrivate: ResourcePrivate,
): Promise<StateResult> {
  let prior = recorded;
  const client = host.client;
  if (!client)
    return {
      state: prior,
      private: {},
      diagnostics: [errorDiag('Provider not configured', 'The takoform provider needs `endpoint` and `token` to apply changes.')],
    };
  if (planned === null) return deleteResource(kind, host, client, prior!);
  if (prior && readEnvelope(prior).pendingOperation) {
    // An update of a resource whose last change is still running on the Host: see it through
    // first, so that the update is fenced by the uid and generation it produced.
    const settled = await settlePending(kind, host, client, prior, 'update', operationTimeout(planned.timeouts, 'update'));
    if ('refusal' in settled) return { state: prior, private: kind.privateFor(prior), diagnostics: settled.refusal };
    if (settled.prior === null) {
      return {
        state: null,
        private: {},
        diagnostics: [
          errorDiag(
            'Resource gone from the Host',
            `${kind.typeName} "${readEnvelope(prior).name}" is not on the Host now that the operation its state recorded has ended, so the planned update cannot be made. It is removed from the state; run plan again to create it.`,
          ),
        ],
      };
    }
    prior = settled.prior;
  }

  let spec: JsonObject;
  try {
    spec = kind.desiredSpec(planned);
  } catch (e) {
    if (e instanceof SpecConversionError)
      return { state: prior, private: {}, diagnostics: [errorDiag('Invalid value', `${kind.typeName}: ${e.message}.`, e.path)] };
    throw e;
  }
  const target = readEnvelope(planned);
  const formRef = kind.formRef(planned);
  const ctx = diagnosticContext(kind, formRef, target.name, target.space, prior);
  const kept = (diagnostics: Diagnostic[]): StateResult => ({ state: prior, private: {}, diagnostics });
  if (prior) {
    const before = readEnvelope(prior);
    if (before.name === target.name && before.space === target.space && canonicalJson(spec) === canonicalJson(kind.hostSpecOf(prior))) {
      // Only provider-side settings (timeouts) or attributes the Host does not see changed:
      // nothing to send to the Host.
      const state = kind.stateFromPrior(prior, planned);
      return { state, private: kind.privateFor(state), diagnostics: [] };
    }
  }
  const request = resourceRequest(formRef, target.space, target.name, spec);
  const timeoutMs = operationTimeout(planned.timeouts, prior ? 'update' : 'create');
  const written = (resource: ResourceResponse, diagnostics: Diagnostic[]): StateResult => {
    const state = withTimeouts(kind.stateFromResource(resource, planned), planned.timeouts);
    return { state, private: kind.privateFor(state), diagnostics: [...diagnostics, ...readinessWarnings(kind.typeName, resource)] };
  };

  const journalWarnings: Diagnostic[] = [];
  if (!prior) {
    // A create of this name and spec that an earlier run here sent but never recorded: resume it.
    try {
      const outcome = await resumeInterruptedCreate(client, host.journal, request, { operationTimeoutMs: timeoutMs });
      journalWarnings.push(...ignoredEntryWarnings(kind.typeName, target.name, outcome.ignored));
      if (outcome.changedSince)
        return kept([...journalWarnings, changedSinceInterruptedCreate(kind.typeName, target.name, target.space, outcome.changedSince)]);
      if (outcome.resumed) {
        const { result, resumed } = outcome.resumed;
        return written(result.resource, [...journalWarnings, ...(resumed ? [resumedWarning(kind.typeName, target.name, result.resource.metadata.uid)] : [])]);
      }
    } catch (e) {
      if (e instanceof AcceptedOutcomeUnknownError) return pendingState(kind, prior, planned, e);
      return kept([...journalWarnings, hostFailureDiagnostic('apply', e, ctx)]);
    }
  }

  // The binding from plan, if it is for the spec the plan shows; else (unknown values at plan,
  // or none) a fresh prepare that must materialize exactly what the plan showed.
  const promised = kind.plannedHostSpec(planned);
  const fromPlan = plannedPrivate.binding && promised && plannedPrivate.binding.specDigest === jcsDigest(promised) ? plannedPrivate.binding : undefined;
  if (plannedPrivate.prepared) host.preparedBindings.spend(plannedPrivate.prepared.key);
  const freshReview = async (): Promise<Review | StateResult> => {
    try {
      const prepared = await client.resources.prepare(request, prior ? readEnvelope(prior).generation : undefined);
      if (promised && canonicalJson(prepared.spec) !== canonicalJson(promised)) {
        return kept([
          ...journalWarnings,
          errorDiag(
            'Changed on the Host since plan',
            `The Host would now apply a different spec to ${kind.typeName} "${target.name}" than the plan showed. Run plan again.`,
          ),
        ]);
      }
      return { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest };
    } catch (e) {
      return kept([...journalWarnings, (await createConflictDiagnostic(client, kind, request, prior, e)) ?? hostFailureDiagnostic('prepare', e, ctx)]);
    }
  };
  const send = (review: Review) =>
    prior
      ? client.resources.apply(
          request,
          review,
          { kind: 'update', expectedGeneration: readEnvelope(prior).generation, expectedUid: readEnvelope(prior).uid },
          { operationTimeoutMs: timeoutMs },
        )
      : journaledCreate(client, host.journal, request, review, { operationTimeoutMs: timeoutMs });

  let review: Review | StateResult = fromPlan ? { prepareDigest: fromPlan.prepareDigest, specDigest: fromPlan.specDigest } : await freshReview();
  // At most one fresh prepare after a refused plan binding (a Host may mint the same digest
  // again, so the digest cannot tell the two attempts apart).
  let reprepared = !fromPlan;
  for (;;) {
    if ('state' in review) return review;
    try {
      return written((await send(review)).resource, journalWarnings);
    } catch (e) {
      if (e instanceof AcceptedOutcomeUnknownError) return pendingState(kind, prior, planned, e);
      if (!reprepared && isBindingRefusal(e)) {
        reprepared = true;
        // The plan's binding no longer stands on the Host (expired there, or minted for what
        // the Host no longer has): prepare again, which refuses unless the Host would store
        // exactly what the plan showed. Nothing kept for re-plans here is trusted again.
        host.preparedBindings.refusedByHost();
        review = await freshReview();
        continue;
      }
      return kept([...journalWarnings, (await createConflictDiagnostic(client, kind, request, prior, e)) ?? hostFailureDiagnostic('apply', e, ctx)]);
    }
  }
}

type Review = { readonly prepareDigest: string; readonly specDigest: string };

/** The Host refused the review binding itself (unknown, expired or minted for something else). */
function isBindingRefusal(e: unknown): boolean {
  return e instanceof HostApiError && e.code === 'invalid_argument' && (e.pointer === '/review/prepareDigest' || /prepareDigest/.test(e.hostMessage));
}
