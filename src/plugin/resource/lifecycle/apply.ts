// Applying a planned change of one resource of any kind: a create (resuming an interrupted
// attempt of this working directory first), an update with the generation and uid fences,
// or a delete (delete.ts). The binding from plan is used when it still matches; otherwise
// apply prepares again and refuses if the Host would now store anything else than the plan
// showed. A 202 is followed up to the `timeouts` value; past it the state records the
// Operation (pending.ts) so that no resource the Host may be creating is ever lost.
import { canonicalJson, jcsDigest } from '../../../common/digest.js';
import { AcceptedOutcomeUnknownError, resourceRequest, type JsonObject, type ResourceResponse } from '../../../host-client/index.js';
import { errorDiag, type Diagnostic } from '../../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import { SpecConversionError } from '../../schema/form-mapping.js';
import type { TfObject } from '../../values/tf-value.js';
import { readEnvelope } from '../envelope.js';
import { journaledCreate, resumeInterruptedCreate } from '../journaled-create.js';
import type { ResourceKind } from '../resource-kind.js';
import { operationTimeout } from '../timeouts.js';
import { createConflictDiagnostic, diagnosticContext, ignoredEntryWarnings, readinessWarnings, resumedWarning, withTimeouts } from './common.js';
import { deleteResource } from './delete.js';
import type { HostAccess } from './host-access.js';
import { pendingState } from './pending.js';
import type { ResourcePrivate } from './resource-private.js';

export interface StateResult {
  readonly state: TfObject | null;
  readonly private: ResourcePrivate;
  readonly diagnostics: Diagnostic[];
}

export async function applyChange(
  kind: ResourceKind,
  host: HostAccess,
  prior: TfObject | null,
  planned: TfObject | null,
  plannedPrivate: ResourcePrivate,
): Promise<StateResult> {
  const client = host.client;
  if (!client)
    return {
      state: prior,
      private: {},
      diagnostics: [errorDiag('Provider not configured', 'The takoform provider needs `endpoint` and `token` to apply changes.')],
    };
  if (planned === null) return deleteResource(kind, host, client, prior!);

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
      if (outcome.resumed) {
        const { result, resumed } = outcome.resumed;
        return written(result.resource, [...journalWarnings, ...(resumed ? [resumedWarning(kind.typeName, target.name, result.resource.metadata.uid)] : [])]);
      }
    } catch (e) {
      if (e instanceof AcceptedOutcomeUnknownError) return pendingState(kind, prior, planned, e);
      return kept([...journalWarnings, hostFailureDiagnostic('apply', e, ctx)]);
    }
  }

  let review = plannedPrivate.binding;
  const promised = kind.plannedHostSpec(planned);
  if (!review || !promised || review.specDigest !== jcsDigest(promised)) {
    // No binding from plan (unknown values then), or one for another spec: prepare now, and
    // insist that the Host materializes exactly what the plan showed.
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
      review = { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest };
    } catch (e) {
      return kept([...journalWarnings, (await createConflictDiagnostic(client, kind, request, prior, e)) ?? hostFailureDiagnostic('prepare', e, ctx)]);
    }
  }

  try {
    const result = prior
      ? await client.resources.apply(
          request,
          review,
          { kind: 'update', expectedGeneration: readEnvelope(prior).generation, expectedUid: readEnvelope(prior).uid },
          { operationTimeoutMs: timeoutMs },
        )
      : await journaledCreate(client, host.journal, request, review, { operationTimeoutMs: timeoutMs });
    return written(result.resource, journalWarnings);
  } catch (e) {
    if (e instanceof AcceptedOutcomeUnknownError) return pendingState(kind, prior, planned, e);
    return kept([...journalWarnings, (await createConflictDiagnostic(client, kind, request, prior, e)) ?? hostFailureDiagnostic('apply', e, ctx)]);
  }
}
