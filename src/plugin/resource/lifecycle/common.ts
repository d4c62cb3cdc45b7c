// Small pieces every lifecycle step shares: the diagnostic context of a resource, value
// equality as core sees it, carrying `timeouts`, and the warnings and refusals the steps emit.
import { HostApiError, type FormRef, type ResourceRequest, type ResourceResponse } from '../../../host-client/index.js';
import { errorDiag, warningDiag, type Diagnostic } from '../../diag/diagnostics.js';
import type { ResourceContext } from '../../diag/host-diagnostics.js';
import { isObjectValue, objectValue, type TfObject, type TfValue } from '../../values/tf-value.js';
import type { IgnoredEntry } from '../create-journal.js';
import type { ResourceKind } from '../resource-kind.js';
import type { LifecycleClient } from './host-access.js';

export function diagnosticContext(kind: ResourceKind, formRef: FormRef, name: string, space: string, prior: TfObject | null): ResourceContext {
  return {
    typeName: kind.typeName,
    name,
    space,
    formRef,
    ...kind.diagnosticFields(),
    ...(prior && typeof prior.uid === 'string' && prior.uid !== '' ? { uid: prior.uid } : {}),
    ...(prior && typeof prior.generation === 'string' && prior.generation !== '' ? { generation: prior.generation } : {}),
  };
}

/** `timeouts` is configuration, not Host state: carry it over from the plan or prior state. */
export function withTimeouts(state: TfObject, timeouts: TfValue | undefined): TfObject {
  return objectValue([...Object.entries(state), ['timeouts', timeouts ?? null]]);
}

/** Structural equality of two known values (numbers by decimal value). */
export function sameValue(a: TfValue, b: TfValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]!));
  }
  if ('equals' in a && typeof a.equals === 'function' && 'equals' in b) return (a as { equals(o: unknown): boolean }).equals(b);
  if (isObjectValue(a) && isObjectValue(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && sameValue(a[k]!, b[k]!));
  }
  return false;
}

export function readinessWarnings(typeName: string, resource: ResourceResponse): Diagnostic[] {
  const ready = resource.status.conditions.find((c) => c.type === 'Ready');
  if (!ready || ready.status === 'True') return [];
  return [
    warningDiag(
      'Resource is not Ready',
      `${typeName} "${resource.metadata.name}" was applied, but the Host reports Ready=${ready.status} (${ready.reason})${ready.message ? `: ${ready.message}` : ''}.`,
    ),
  ];
}

export function resumedWarning(typeName: string, name: string, uid: string): Diagnostic {
  return warningDiag(
    'Interrupted create resumed',
    `An earlier run created ${typeName} "${name}" on the Host (uid ${uid}) but stopped before recording it in state. ` +
      'This run sent the same request again and the Host answered it from its idempotency record: the existing resource is now in state, nothing was created twice.',
  );
}

/** Warnings for journal entries that were found but not trusted. */
export function ignoredEntryWarnings(typeName: string, name: string, ignored: readonly IgnoredEntry[]): Diagnostic[] {
  return ignored.map((entry) =>
    warningDiag(
      'Create journal entry ignored',
      `A journaled create of ${typeName} "${name}" (${entry.what}) was not resumed because ${entry.reason}. It was removed; this run creates the resource as usual.`,
    ),
  );
}

/**
 * A create of a name that an interrupted create from this working directory (sent with the
 * configuration as it was then) most likely made: not created again, not adopted without the
 * user's word, the journal entry kept.
 */
export function changedSinceInterruptedCreate(
  typeName: string,
  name: string,
  space: string,
  held: { readonly writtenAt: string; readonly uid: string; readonly generation: string },
): Diagnostic {
  return errorDiag(
    'Interrupted create made with another configuration',
    `${typeName} "${name}" in space "${space}" is on the Host (uid ${held.uid}, generation ${held.generation}), most likely made by a create this working directory sent at ${held.writtenAt} that was interrupted before the state saved it. ` +
      'The configuration of this block has changed since, so that create cannot be resumed as it was sent, and a new create of the name would be refused. Nothing was changed, and the record of that create is kept. ' +
      `Either put the block back as it was and apply (the create is resumed and the state takes it), then make the change; or take the resource over with an \`import\` block (id = "${space}/${name}") or the CLI's \`import <address> ${space}/${name}\`, after which the plan updates it to this configuration.`,
  );
}

/**
 * A create refused because the name is already taken on the Host by anyone but this very
 * attempt — another block of this configuration, another state, workspace or working
 * directory, or this one after `state rm`: say so plainly, with the import command, instead
 * of the Host's complaint about a fence. Core adds the address of the block that lost.
 */
export async function createConflictDiagnostic(
  client: LifecycleClient,
  kind: ResourceKind,
  request: ResourceRequest,
  prior: TfObject | null,
  error: unknown,
): Promise<Diagnostic | undefined> {
  if (prior || !(error instanceof HostApiError) || !(error.code === 'invalid_argument' || error.code === 'generation_conflict')) return undefined;
  const { space, name } = request.metadata;
  const existing = await client.resources.read({ formRef: request.form.formRef, space, name }).catch(() => undefined);
  if (!existing) return undefined;
  const id = kind.importId(request.form.formRef, space, name);
  return errorDiag(
    'Resource already exists on the Host',
    `${kind.typeName} "${name}" already exists in space "${space}" (uid ${existing.metadata.uid}, generation ${existing.metadata.generation}), and this create did not make it: ` +
      'another resource block of this configuration, another state or workspace, or an earlier run whose state does not have it ' +
      '(after `state rm`, or a CLI stopped after the create but before it saved its state) holds the name. Nothing was changed. ' +
      `Give this block another name; or, to manage the existing one here, import it: an \`import\` block with id = "${id}", or the CLI's \`import <address> ${id}\` ` +
      '(first make sure no other state manages it: two states managing one resource delete it for each other). Host code: ' +
      `${error.code}${error.requestId ? `, request ${error.requestId}` : ''}.`,
  );
}
